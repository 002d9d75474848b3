"""Only SNS's own host may name the certificate that signs a message: any other is refused before anything
is fetched (the URL comes from the very message being checked)."""

from __future__ import annotations

import pytest

from services.suppression.errors import InboundRefused
from services.suppression.sns import allowed_certificate_url

PEM = "SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem"


@pytest.mark.parametrize(
    "url",
    [
        f"https://sns.us-east-1.amazonaws.com/{PEM}",
        f"https://sns.eu-central-2.amazonaws.com/{PEM}",
        f"https://sns.cn-north-1.amazonaws.com.cn/{PEM}",
    ],
)
def test_snss_own_hosts_are_accepted(url: str) -> None:
    assert allowed_certificate_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        f"http://sns.us-east-1.amazonaws.com/{PEM}",
        f"https://sns.us-east-1.amazonaws.com.evil.test/{PEM}",
        f"https://evil.test/sns.us-east-1.amazonaws.com/{PEM}",
        f"https://sns.us-east-1.amazonaws.com@evil.test/{PEM}",
        f"https://user@sns.us-east-1.amazonaws.com/{PEM}",
        f"https://sns.us-east-1.amazonaws.com:8443/{PEM}",
        "https://sns.us-east-1.amazonaws.com/not-a-certificate.txt",
        f"https://s3.amazonaws.com/{PEM}",
        f"https://127.0.0.1/{PEM}",
        "",
        None,
    ],
)
def test_any_other_certificate_url_is_refused(url: str | None) -> None:
    with pytest.raises(InboundRefused) as refused:
        allowed_certificate_url(url)
    assert refused.value.reason == "certificate_url"
