"""White-label on and off, as a reseller's customer sees it: single results, error bodies, headers, webhook
payloads and their User-Agent, and the emails it receives. While on, nothing names this service."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import requests
from sqlalchemy import select

from models.keys import ApiKey
from models.session import transaction
from models.webhooks import Event
from services.keys import rotation
from services.mail import outbox
from services.webhooks import delivery
from settings import get_settings
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.resellers.conftest import Customer, create_sub_user
from tests.webhooks.receiver import Receiver, body_of
from tests.workers.harness import Api

QUICK = {"options": {"quickMode": True}}
BRAND = {
    "provider": "Acme Verify",
    "support": "help@acme-verify.example",
    "documentation": "https://docs.acme-verify.example/api",
}
OURS = "verimail"


def switch(live_api: Api, reseller: Persona, *, enabled: bool) -> dict[str, Any]:
    response = live_api.call("put", "/api/white-label", reseller, json={"enabled": enabled, **BRAND})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def service_brand() -> dict[str, str]:
    own = get_settings().brand
    return {"provider": own.provider, "support": own.support, "documentation": own.documentation}


def brand_of(metadata: dict[str, Any]) -> dict[str, Any]:
    return {name: metadata[name] for name in ("provider", "support", "documentation")}


def names_us(response: requests.Response) -> bool:
    headers = " ".join(f"{name}: {value}" for name, value in response.headers.items())
    return OURS in (headers + response.text).lower()


def validate(live_api: Api, persona: Customer | Persona) -> requests.Response:
    response = live_api.call("post", "/validate", persona, json={"email": "alice@mailbox.test", **QUICK})
    assert response.status_code == 200, response.text
    return response


def test_off_results_carry_the_services_own_provider_support_and_documentation(
    live_api: Api, reseller: Persona, owner: Persona
) -> None:
    customer = create_sub_user(live_api, reseller)
    switch(live_api, reseller, enabled=False)

    for persona in (customer, reseller, owner):
        metadata = validate(live_api, persona).json()["metadata"]
        assert brand_of(metadata) == service_brand()
        assert {"processingTime", "timestamp", "ipAddress", "country"} <= metadata.keys()
    assert service_brand()["provider"] == OURS
    assert service_brand()["documentation"] == f"{get_settings().base_url}/openapi.json"


def test_on_results_name_the_reseller_and_nothing_of_ours(
    live_api: Api, reseller: Persona, owner: Persona
) -> None:
    customer = create_sub_user(live_api, reseller)
    assert live_api.call("get", "/api/white-label", reseller).json() == {
        "enabled": False,
        "provider": None,
        "support": None,
        "documentation": None,
        "updatedAt": None,
    }

    saved = switch(live_api, reseller, enabled=True)

    assert {**saved, "updatedAt": None} == {"enabled": True, **BRAND, "updatedAt": None}
    assert live_api.call("get", "/api/white-label", reseller).json() == saved
    for persona in (customer, reseller):
        answered = validate(live_api, persona)
        assert brand_of(answered.json()["metadata"]) == BRAND
        assert not names_us(answered)
    # Someone else's customers are not affected.
    assert brand_of(validate(live_api, owner).json()["metadata"]) == service_brand()
    # Switched off, results are ours again.
    switch(live_api, reseller, enabled=False)
    assert brand_of(validate(live_api, customer).json()["metadata"]) == service_brand()


def test_on_error_answers_name_nothing_of_ours(live_api: Api, reseller: Persona) -> None:
    customer = create_sub_user(live_api, reseller)
    switch(live_api, reseller, enabled=True)

    answers = [
        live_api.call("post", "/validate/batch", customer, json={"emails": []}),
        live_api.call("post", "/validate", customer, json={"email": 5}),
        live_api.call("get", "/batches/bat_000000000000000000000000/results", customer),
        live_api.call("get", "/api/sub-users", customer),
        live_api.call("get", "/api/usage", headers={"X-API-Key": "sk_live_not_a_key"}),
        live_api.call("delete", "/validate", customer),
    ]

    assert [answer.status_code for answer in answers] == [400, 400, 404, 403, 401, 405]
    assert [answer for answer in answers if names_us(answer)] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"enabled": True}, "provider"),
        ({"enabled": True, **BRAND, "support": None}, "support"),
        ({"enabled": True, **BRAND, "documentation": "docs.acme.example"}, "documentation"),
        ({"enabled": "yes", **BRAND}, "enabled"),
        ({**BRAND}, "enabled"),
        ({"enabled": True, **BRAND, "provider": ""}, "provider"),
        ({"enabled": True, **BRAND, "logo": "x"}, "logo"),
    ],
)
def test_bad_settings_are_400_naming_the_field(live_api: Api, reseller: Persona, body, field) -> None:
    response = live_api.call("put", "/api/white-label", reseller, json=body)

    assert response.status_code == 400
    assert response.json()["field"] == field


def deliver_validation_completed(live_api: Api, customer: Customer, receiver: Receiver) -> dict[str, Any]:
    """One validation by ``customer``, its event delivered to the receiver now; what the receiver got."""
    before = len(receiver.received)
    validate(live_api, customer)
    with transaction() as session:
        event_id = session.scalars(
            select(Event.id)
            .where(Event.account_id == customer.persona.account_id, Event.type == "validation.completed")
            .order_by(Event.created_at.desc())
            .limit(1)
        ).one()
    delivery.deliver_due(event_id=event_id)
    got = receiver.received[before]
    assert got.verified
    return {"headers": got.headers, "body": body_of(got), "raw": got.body}


def test_webhook_payloads_and_user_agent_follow_the_switch(
    live_api: Api, reseller: Persona, receiver: Receiver
) -> None:
    customer = create_sub_user(live_api, reseller)
    created = live_api.call(
        "post", "/webhooks", customer, json={"url": receiver.url(), "events": ["validation.completed"]}
    ).json()
    receiver.secret = created["secret"]

    switch(live_api, reseller, enabled=True)
    branded = deliver_validation_completed(live_api, customer, receiver)
    switch(live_api, reseller, enabled=False)
    plain = deliver_validation_completed(live_api, customer, receiver)

    assert branded["body"]["data"]["metadata"] == BRAND
    assert branded["headers"]["User-Agent"] == "webhook-delivery/1.0"
    seen = " ".join(f"{name}: {value}" for name, value in branded["headers"].items())
    assert OURS not in (seen + branded["raw"].decode()).lower()
    assert plain["body"]["data"]["metadata"] == service_brand()
    assert plain["headers"]["User-Agent"] == "verimail-webhooks/1.0"


def rotation_warning(customer: Customer, mailbox: Mailbox) -> Any:
    """Day 83 of the sub-user's first key: the warning email, sent through the loopback relay."""
    with transaction() as session:
        issued = session.get_one(ApiKey, customer.persona.key_id).secret_issued_at
    with transaction() as session:
        rotation.advance(session, customer.persona.key_id, issued + timedelta(days=83))
    outbox.send_due()
    [mail] = mailbox.to(customer.body["email"])
    return mail


def test_emails_to_a_white_labelled_sub_user_come_from_the_reseller(
    live_api: Api, reseller: Persona, mailbox: Mailbox
) -> None:
    customer = create_sub_user(live_api, reseller)
    switch(live_api, reseller, enabled=True)

    mail = rotation_warning(customer, mailbox)

    assert mail.message["From"].addresses[0].display_name == "Acme Verify"
    assert mail.message["From"].addresses[0].addr_spec == get_settings().brand.white_label_mail_from
    assert "nobody from Acme Verify will ask" in mail.text()
    assert "nobody from Acme Verify will ask" in mail.html()
    assert OURS not in mail.message.as_string().lower()


def test_emails_to_other_sub_users_come_from_us(live_api: Api, reseller: Persona, mailbox: Mailbox) -> None:
    customer = create_sub_user(live_api, reseller)

    mail = rotation_warning(customer, mailbox)

    assert mail.message["From"] == get_settings().mail_from
    assert "nobody from verimail will ask" in mail.text()
