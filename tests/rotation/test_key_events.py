"""The rotation paths produce exactly one ``key.created``/``key.disabled`` each, and never carry a secret."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import delete, select

from models import Event, WebhookEndpoint
from models.session import transaction
from services.webhooks.events import EVENT_TYPES
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, sweep


@pytest.fixture
def subscribed(owner: Persona) -> Iterator[None]:
    """An endpoint row for the owner's account, as the webhooks API would store it (the API itself is tested
    in tests/webhooks), so key events are stored. Removed afterwards with its pending deliveries: the
    webhook sweeper of other tests must not find them due."""
    endpoint = WebhookEndpoint(
        account_id=owner.account_id,
        url="https://127.0.0.1:9/verimail",  # nothing listens there: refused at once, no DNS lookup
        events=list(EVENT_TYPES),
        secret="whsec_test",
    )
    with transaction() as session:
        session.add(endpoint)
    yield
    with transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == endpoint.id))


def key_events(account_id: int, key_id: int) -> list[tuple[str, str, str]]:
    """(type, reason, last four of the secret) of the account's events about ``key_id``, sorted: events of
    one transaction share their timestamp, and receivers must not rely on order anyway (spec 6.4)."""
    stmt = (
        select(Event)
        .where(Event.account_id == account_id, Event.type.like("key.%"))
        .order_by(Event.created_at)
    )
    with transaction() as session:
        events = [event for event in session.scalars(stmt) if event.data["keyId"] == key_id]
    return sorted(
        (event.type, event.data.get("reason", ""), event.data["secretKeyLast4"]) for event in events
    )


def all_event_data(account_id: int) -> str:
    with transaction() as session:
        return json.dumps(
            [event.data for event in session.scalars(select(Event).where(Event.account_id == account_id))]
        )


def test_auto_rotation_disables_the_old_secret_and_creates_the_new_one(
    client: FlaskClient, owner: Persona, subscribed: None, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Webhook consumer", auto_rotate=True)
    key_id, old_last4 = created.id, created.secret[-4:]

    for day in (83, 86, 89, 90, 90.5, 95):
        timeline.at(day)
        sweep(2)
    new_secret = client.post(f"/api/keys/{key_id}/reveal-secret", headers=owner.headers).get_json()["key"][
        "secretKey"
    ]

    assert key_events(owner.account_id, key_id) == sorted(
        [
            ("key.created", "", old_last4),
            ("key.disabled", "rotated", old_last4),
            ("key.created", "", new_secret[-4:]),
        ]
    )
    assert new_secret not in all_event_data(owner.account_id)


def test_day_97_deactivation_emits_one_key_disabled(
    client: FlaskClient, owner: Persona, subscribed: None, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Legacy cron", auto_rotate=False)
    key_id, last4 = created.id, created.secret[-4:]

    for day in (90, 96, 97, 97.5, 100):
        timeline.at(day)
        sweep(2)

    assert key_events(owner.account_id, key_id) == [
        ("key.created", "", last4),
        ("key.disabled", "rotation-overdue", last4),
    ]


def test_a_manual_refresh_disables_the_old_secret_and_creates_the_new_one(
    client: FlaskClient, owner: Persona, subscribed: None, timeline: Timeline
) -> None:
    created = create_key(client, owner, "Admin panel", auto_rotate=False)
    key_id, old_last4 = created.id, created.secret[-4:]

    refreshed = client.post(f"/api/keys/{key_id}/refresh", headers=owner.headers).get_json()["key"][
        "secretKey"
    ]

    assert key_events(owner.account_id, key_id) == sorted(
        [
            ("key.created", "", old_last4),
            ("key.disabled", "rotated", old_last4),
            ("key.created", "", refreshed[-4:]),
        ]
    )
