"""The list follows the account's normalisation of addresses: case and Unicode, IDN domains, and the
dots and +tags of providers that define them (Gmail ignores both; Outlook, iCloud and others drop the tag);
other domains keep them."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from services.suppression.normalise import suppression_key
from tests.fixtures.db import Persona


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("  John.Doe@Example.COM ", "john.doe@example.com"),
        ("jörg@MÜNCHEN.de", "jörg@xn--mnchen-3ya.de"),
        ("jörg@xn--mnchen-3ya.de", "jörg@xn--mnchen-3ya.de"),
        ("J.O.H.N+news@GoogleMail.com", "john@gmail.com"),
        ("john@gmail.com", "john@gmail.com"),
        ("ann.lee+promo@outlook.com", "ann.lee@outlook.com"),
        ("ann+x@icloud.com", "ann@icloud.com"),
        ("ann.lee+promo@company.example", "ann.lee+promo@company.example"),
        ("+only@gmail.com", "+only@gmail.com"),
    ],
)
def test_spellings_of_one_mailbox_share_one_key(spelling: str, key: str) -> None:
    assert suppression_key(spelling) == key


@pytest.mark.parametrize(
    ("suppressed", "asked"),
    [
        ("John.Doe+list@gmail.com", "johndoe@googlemail.com"),
        ("Ann@Outlook.com", "ann+newsletter@outlook.com"),
        ("jörg@münchen.de", "JÖRG@xn--mnchen-3ya.de"),
    ],
)
def test_a_spelling_of_a_suppressed_mailbox_is_answered_as_suppressed(
    client: FlaskClient, owner: Persona, suppressed: str, asked: str
) -> None:
    client.post("/suppression", json={"email": suppressed}, headers=owner.headers)

    answer = client.post(
        "/validate", json={"email": asked, "options": {"quickMode": True}}, headers=owner.headers
    )

    assert answer.get_json()["metadata"]["reason"] == "suppressed", answer.get_json()
    assert answer.get_json()["metadata"]["suppression"]["email"] == suppressed


def test_a_company_domain_keeps_its_dots_and_tags(client: FlaskClient, owner: Persona) -> None:
    client.post("/suppression", json={"email": "ann.lee@company.example"}, headers=owner.headers)

    answer = client.post(
        "/validate",
        json={"email": "annlee@company.example", "options": {"quickMode": True}},
        headers=owner.headers,
    )

    assert "reason" not in answer.get_json()["metadata"]
