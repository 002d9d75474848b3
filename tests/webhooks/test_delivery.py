"""Deliveries end to end: an event committed in Postgres reaches the live HTTPS receiver, signed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from models import session as db_session
from services.webhooks import delivery, events
from settings import get_settings
from tests.fixtures.db import Persona
from tests.webhooks.conftest import Subscription, subscribe
from tests.webhooks.receiver import Receiver


def emit(persona: Persona, event_type: str = "quota.reset", data: dict[str, Any] | None = None) -> str:
    with db_session.transaction() as session:
        event = events.emit(session, persona.account_id, event_type, data or {"previousUsage": 7})
        assert event is not None
        return event.id


def test_committed_event_is_delivered_signed_to_the_receiver(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    event_id = emit(owner)
    assert delivery.deliver_due() == 1
    [seen] = receiver.received
    assert seen.verified
    assert seen.headers["X-Service-Signature"]
    assert seen.headers["X-Service-Timestamp"].isdigit()
    envelope = json.loads(seen.body)
    assert envelope["id"] == event_id
    assert envelope["type"] == "quota.reset"
    assert envelope["timestamp"].endswith("Z")
    assert envelope["data"] == {"previousUsage": 7}
    log = client.get(f"/webhooks/{subscribed.endpoint_id}/deliveries", headers=owner.headers).get_json()
    [logged] = log["data"]
    assert logged["status"] == "delivered"
    assert logged["payload"] == envelope
    [attempt] = logged["attempts"]
    assert (attempt["number"], attempt["statusCode"], attempt["error"]) == (1, 200, None)
    assert attempt["responseExcerpt"] == '{"ok": true}'
    assert attempt["responseTimeMs"] >= 0
    assert delivery.deliver_due() == 0  # nothing left to send


def failing_change(account_id: int) -> None:
    with db_session.transaction() as session:
        events.emit(session, account_id, "quota.reset", {})
        raise RuntimeError("the change failed")


def test_rolled_back_change_sends_nothing(
    owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    with pytest.raises(RuntimeError):
        failing_change(owner.account_id)
    assert delivery.deliver_due() == 0
    assert receiver.received == []


def test_only_subscribed_enabled_endpoints_of_the_account_receive(
    client: FlaskClient, owner: Persona, outsider: Persona, receiver: Receiver, test_ca
) -> None:
    subscribe(client, owner, receiver, ["quota.warning"])
    other = Receiver(ca=test_ca)
    other.start()
    try:
        subscribe(client, outsider, other, list(events.EVENT_TYPES))
        with db_session.transaction() as session:
            assert events.emit(session, owner.account_id, "quota.reset", {}) is None  # nobody subscribed
            warned = events.emit(session, owner.account_id, "quota.warning", {"percentage": 80})
        assert delivery.deliver_due() == 1
    finally:
        other.stop()
    assert warned is not None
    assert [event["id"] for event in receiver.events()] == [warned.id]
    assert other.received == []


def test_disabled_endpoint_gets_no_new_events(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    client.patch(f"/webhooks/{subscribed.endpoint_id}", json={"status": "disabled"}, headers=owner.headers)
    with db_session.transaction() as session:
        assert events.emit(session, owner.account_id, "quota.reset", {}) is None
    assert delivery.deliver_due() == 0
    assert receiver.received == []


def test_rotated_secret_signs_the_next_delivery(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    rotated = client.post(f"/webhooks/{subscribed.endpoint_id}/rotate-secret", headers=owner.headers)
    emit(owner)
    delivery.deliver_due()
    assert receiver.received[0].verified is False  # the receiver still holds the old secret
    receiver.secret = rotated.get_json()["secret"]
    receiver.received.clear()
    emit(owner)
    delivery.deliver_due()
    assert receiver.received[0].verified is True


def test_loopback_target_refused_at_delivery_when_setting_turned_off(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription, monkeypatch
) -> None:
    # The endpoint was accepted while loopback was allowed; the check runs again at every attempt.
    emit(owner)
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "false")
    get_settings.cache_clear()
    assert delivery.deliver_due() == 1
    assert receiver.received == []
    log = client.get(f"/webhooks/{subscribed.endpoint_id}/deliveries", headers=owner.headers).get_json()
    [attempt] = log["data"][0]["attempts"]
    assert attempt["statusCode"] is None
    assert "refused" in attempt["error"]
    assert "loopback" in attempt["error"]
    assert log["data"][0]["status"] == "pending"  # retried on schedule, in case the setting returns
