"""The outbound client against a real HTTPS receiver on loopback (and refusals that never connect)."""

from __future__ import annotations

import pytest
import trustme

from services.webhooks import outbound
from services.webhooks.errors import DeliveryError
from settings import get_settings
from tests.webhooks.receiver import Receiver


def test_post_reaches_receiver_and_returns_status_and_excerpt(receiver: Receiver) -> None:
    receiver.status, receiver.answer = 202, b"accepted " + b"x" * 5000
    result = outbound.post(receiver.url(), b'{"hello": 1}', {"X-Test": "yes"})
    assert result.status == 202
    assert result.excerpt.startswith("accepted x")
    assert len(result.excerpt) == outbound.EXCERPT_BYTES
    [seen] = receiver.received
    assert seen.body == b'{"hello": 1}'
    assert seen.headers["X-Test"] == "yes"
    assert seen.headers["Content-Type"] == "application/json"
    assert seen.headers["Host"] == f"localhost:{receiver.port}"


def test_redirect_is_the_answer_and_is_not_followed(receiver: Receiver) -> None:
    receiver.status, receiver.extra_headers = 302, {"Location": f"https://127.0.0.1:{receiver.port}/other"}
    result = outbound.post(receiver.url(), b"{}", {})
    assert result.status == 302
    assert len(receiver.received) == 1


def test_certificate_must_name_the_url_host(test_ca: trustme.CA, webhook_env: None) -> None:
    # We dial the checked address, but the certificate must still name the host of the URL.
    elsewhere = Receiver(ca=test_ca, names=("receiver.example.com",))
    elsewhere.start()
    try:
        with pytest.raises(DeliveryError, match="TLS"):
            outbound.post(elsewhere.url("localhost"), b"{}", {})
    finally:
        elsewhere.stop()
    assert elsewhere.received == []


def test_untrusted_certificate_is_refused(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    other_ca = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(other_ca))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(other_ca))
    get_settings.cache_clear()
    with pytest.raises(DeliveryError, match="TLS"):
        outbound.post(receiver.url(), b"{}", {})
    assert receiver.received == []


def test_loopback_refused_end_to_end_when_setting_off(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "false")
    get_settings.cache_clear()
    with pytest.raises(DeliveryError, match="loopback"):
        outbound.post(receiver.url(), b"{}", {})
    assert receiver.received == []


def test_plain_http_is_refused(receiver: Receiver) -> None:
    with pytest.raises(DeliveryError, match="https"):
        outbound.post(f"http://localhost:{receiver.port}/hooks", b"{}", {})
    assert receiver.received == []
