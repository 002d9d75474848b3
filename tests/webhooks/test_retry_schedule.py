"""Spec 6.4 on a controlled clock: attempts exactly at +0, +1 min, +5, +30 min, +2 h, +24 h, then failed."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask.testing import FlaskClient

from core import clock
from core.times import iso
from models import session as db_session
from services.webhooks import delivery, events
from tests.fixtures.db import Persona
from tests.webhooks.conftest import Subscription
from tests.webhooks.receiver import Receiver

SECOND = timedelta(seconds=1)
# Each delay counts from the previous attempt (spec 6.4 "delay before it").
EXPECTED_OFFSETS = [
    timedelta(0),
    timedelta(minutes=1),
    timedelta(minutes=6),
    timedelta(minutes=36),
    timedelta(hours=2, minutes=36),
    timedelta(hours=26, minutes=36),
]


def emit_reset(persona: Persona) -> str:
    with db_session.transaction() as session:
        event = events.emit(session, persona.account_id, "quota.reset", {"previousUsage": 1})
        assert event is not None
        return event.id


def log_of(client: FlaskClient, persona: Persona, endpoint_id: int) -> dict[str, Any]:
    response = client.get(f"/webhooks/{endpoint_id}/deliveries", headers=persona.headers)
    latest: dict[str, Any] = response.get_json()["data"][0]
    return latest


def at(start: datetime, offset: timedelta) -> None:
    clock.freeze(start + offset)


def test_failing_receiver_gets_attempts_exactly_at_the_schedule_times(
    frozen_clock: None, client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status = 500
    start = clock.now()
    event_id = emit_reset(owner)
    for number, offset in enumerate(EXPECTED_OFFSETS, start=1):
        if number > 1:
            at(start, offset - SECOND)
            assert delivery.deliver_due() == 0, f"attempt {number} came early"
        at(start, offset)
        assert delivery.deliver_due() == 1, f"attempt {number} did not come on time"
    at(start, EXPECTED_OFFSETS[-1] + timedelta(days=7))
    assert delivery.deliver_due() == 0  # failed for good: no seventh attempt

    logged = log_of(client, owner, subscribed.endpoint_id)
    assert logged["status"] == "failed"
    assert logged["nextAttemptAt"] is None
    attempted = [a["attemptedAt"] for a in logged["attempts"]]
    assert attempted == [iso(start + offset) for offset in EXPECTED_OFFSETS]
    assert [a["statusCode"] for a in logged["attempts"]] == [500] * 6
    assert [event["id"] for event in receiver.events()] == [event_id] * 6  # same id: receivers dedupe


def test_pending_delivery_shows_when_it_will_be_retried(
    frozen_clock: None, client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status = 503
    start = clock.now()
    emit_reset(owner)
    delivery.deliver_due()
    logged = log_of(client, owner, subscribed.endpoint_id)
    assert logged["status"] == "pending"
    assert logged["nextAttemptAt"] == iso(start + timedelta(minutes=1))


def test_delivery_succeeds_on_a_later_attempt_and_stops_there(
    frozen_clock: None, client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status = 503
    start = clock.now()
    emit_reset(owner)
    delivery.deliver_due()
    at(start, EXPECTED_OFFSETS[1])
    delivery.deliver_due()
    receiver.status = 204
    at(start, EXPECTED_OFFSETS[2])
    assert delivery.deliver_due() == 1
    at(start, EXPECTED_OFFSETS[-1])
    assert delivery.deliver_due() == 0
    logged = log_of(client, owner, subscribed.endpoint_id)
    assert logged["status"] == "delivered"
    assert [a["statusCode"] for a in logged["attempts"]] == [503, 503, 204]
    assert logged["completedAt"] == iso(start + EXPECTED_OFFSETS[2])


def test_redirect_counts_as_a_failed_attempt(
    frozen_clock: None, client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status, receiver.extra_headers = 301, {"Location": "https://10.0.0.1/"}
    emit_reset(owner)
    delivery.deliver_due()
    logged = log_of(client, owner, subscribed.endpoint_id)
    assert (logged["status"], logged["attempts"][0]["statusCode"]) == ("pending", 301)
    assert len(receiver.received) == 1
