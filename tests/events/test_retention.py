"""Retention on a controlled clock: finished deliveries, their events and sent emails go after 30 days;
anything still due stays, whatever its age."""

from __future__ import annotations

from datetime import timedelta

from flask.testing import FlaskClient
from sqlalchemy import select

from core import clock
from models import Event
from models import session as db_session
from models.mail import OutboundMail
from services import retention
from services.mail import outbox
from services.webhooks import delivery, events
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox, mailbox
from tests.webhooks.conftest import Subscription
from tests.webhooks.receiver import Receiver

__all__ = ["mailbox"]  # the fixture, found by name
RETENTION = timedelta(days=30)


def emit(persona: Persona, previous_usage: int) -> str:
    with db_session.transaction() as session:
        event = events.emit(session, persona.account_id, "quota.reset", {"previousUsage": previous_usage})
        assert event is not None
        return event.id


def queue_mail(persona: Persona, subject: str) -> None:
    with db_session.transaction() as session:
        outbox.queue(
            session, persona.account_id, outbox.Draft("owner@example.com", subject, "text", "<p>h</p>")
        )


def logged_event_ids(client: FlaskClient, persona: Persona, endpoint_id: int) -> list[str]:
    log = client.get(f"/webhooks/{endpoint_id}/deliveries", headers=persona.headers).get_json()
    return [delivery["payload"]["id"] for delivery in log["data"]]


def stored(persona: Persona) -> tuple[set[str], set[str]]:
    """The account's event ids and email subjects still in Postgres."""
    with db_session.transaction() as session:
        event_ids = set(session.scalars(select(Event.id).where(Event.account_id == persona.account_id)))
        subjects = select(OutboundMail.subject).where(OutboundMail.account_id == persona.account_id)
        return event_ids, set(session.scalars(subjects))


def test_finished_records_are_purged_after_the_retention_period_and_due_ones_stay(
    frozen_clock: None,
    client: FlaskClient,
    owner: Persona,
    receiver: Receiver,
    subscribed: Subscription,
    mailbox: Mailbox,
) -> None:
    start = clock.now()
    emit(owner, 1)
    delivery.deliver_due()
    queue_mail(owner, "sent long ago")
    outbox.send_due()
    receiver.status = 500
    pending = emit(owner, 2)
    delivery.deliver_due()  # first attempt fails: pending, retried in a minute
    queue_mail(owner, "still queued")  # never sent: the relay is not asked again in this test

    # The purge is global: other tests' leftovers may go too, so only this account's rows are asserted.
    everything = stored(owner)
    assert (len(everything[0]), everything[1]) == (2, {"sent long ago", "still queued"})
    clock.freeze(start + RETENTION - timedelta(minutes=1))
    retention.purge_expired()
    assert stored(owner) == everything
    clock.freeze(start + RETENTION + timedelta(minutes=1))
    purged = retention.purge_expired()
    assert min(purged.deliveries, purged.events, purged.mail) >= 1

    assert logged_event_ids(client, owner, subscribed.endpoint_id) == [pending]
    assert stored(owner) == ({pending}, {"still queued"})
