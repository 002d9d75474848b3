"""The delivery log of an endpoint, redelivery, and test sends (``POST /webhooks/test``).

Redelivery and test sends never POST from the web process: they store a delivery due now, commit, ask a
webhook worker for that one delivery, and wait at most ``WAIT_SECONDS`` for its first attempt to be
logged. The caller gets that attempt's outcome, or - a slow receiver, a busy account, a worker down - the
delivery as it stands, to follow in the log (the web tier answers 202); the sweeper makes the attempt if
the message is lost. A web thread is therefore never held longer than the wait, whatever the receiver
does. A redelivery that fails then follows the normal retry schedule; a test send is attempted once (its
caller is watching, and retries of a sample event would only surprise the receiver later). Both count
against ``send_limits`` first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from models.session import transaction
from models.webhooks import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from services import branding, links
from services.auth import Actor
from services.broker import DELIVER_ONE_TASK, send_after_commit
from services.errors import NotFound
from services.webhooks import events, payloads, send_limits
from services.webhooks.endpoints import of_caller, owned_endpoint
from services.webhooks.errors import NoTestTarget
from services.webhooks.retry_schedule import MAX_ATTEMPTS


@dataclass(frozen=True)
class DeliveryRecord:
    """One delivery as the log shows it: the event sent and every attempt, oldest first."""

    delivery: WebhookDelivery
    event: Event
    attempts: list[WebhookAttempt]

    @property
    def attempted(self) -> bool:
        return bool(self.attempts)


@dataclass(frozen=True)
class DeliveryPage:
    records: list[DeliveryRecord]
    has_more: bool


@dataclass(frozen=True)
class EventDeliveries:
    """One event's deliveries to one endpoint, oldest first: its first delivery and the redeliveries asked
    for since, which a person reads as further attempts of that one delivery."""

    records: list[DeliveryRecord]

    @property
    def first(self) -> DeliveryRecord:
        return self.records[0]

    @property
    def latest(self) -> DeliveryRecord:
        return self.records[-1]

    @property
    def attempts(self) -> list[tuple[WebhookAttempt, bool]]:
        """Every attempt in the order made, each with whether it was the first of a redelivery."""
        return [
            (attempt, index > 0 and attempt.number == 1)
            for index, record in enumerate(self.records)
            for attempt in record.attempts
        ]


@dataclass(frozen=True)
class EventDeliveriesPage:
    events: list[EventDeliveries]
    has_more: bool


def list_deliveries(
    actor: Actor, endpoint_id: int, *, limit: int, starting_after: int | None = None
) -> DeliveryPage:
    """The endpoint's deliveries, newest first; ``starting_after`` (a delivery id) pages back in time."""
    with transaction() as session:
        _one_snapshot(session)
        owned_endpoint(session, actor, endpoint_id)
        stmt = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
        if starting_after is not None:
            stmt = stmt.where(WebhookDelivery.id < starting_after)
        rows = list(session.scalars(stmt.order_by(WebhookDelivery.id.desc()).limit(limit + 1)))
        return DeliveryPage(_records(session, rows[:limit]), has_more=len(rows) > limit)


def list_event_deliveries(
    actor: Actor, endpoint_id: int, *, limit: int, starting_after: int | None = None
) -> EventDeliveriesPage:
    """The endpoint's log by event, newest first delivery first: each event's first delivery with its
    redeliveries. ``starting_after`` (a first delivery's id) pages back in time."""
    with transaction() as session:
        _one_snapshot(session)
        owned_endpoint(session, actor, endpoint_id)
        firsts = _first_deliveries(session, endpoint_id, limit + 1, starting_after)
        events = [first.event_id for first in firsts[:limit]]
        stmt = select(WebhookDelivery).where(
            WebhookDelivery.endpoint_id == endpoint_id, WebhookDelivery.event_id.in_(events)
        )
        grouped: dict[str, list[DeliveryRecord]] = {event_id: [] for event_id in events}
        for record in _records(session, list(session.scalars(stmt.order_by(WebhookDelivery.id)))):
            grouped[record.delivery.event_id].append(record)
        return EventDeliveriesPage(
            [EventDeliveries(grouped[event_id]) for event_id in events], len(firsts) > limit
        )


def _first_deliveries(
    session: Session, endpoint_id: int, limit: int, starting_after: int | None
) -> list[WebhookDelivery]:
    """The endpoint's deliveries that are no redelivery (no earlier delivery of their event), newest first."""
    earlier = aliased(WebhookDelivery)
    redelivery = (
        select(earlier.id)
        .where(
            earlier.endpoint_id == WebhookDelivery.endpoint_id,
            earlier.event_id == WebhookDelivery.event_id,
            earlier.id < WebhookDelivery.id,
        )
        .exists()
    )
    stmt = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id, ~redelivery)
    if starting_after is not None:
        stmt = stmt.where(WebhookDelivery.id < starting_after)
    return list(session.scalars(stmt.order_by(WebhookDelivery.id.desc()).limit(limit)))


def redeliver(actor: Actor, endpoint_id: int, delivery_id: int) -> DeliveryRecord:
    """Send a delivery's event to the endpoint again now, as a new delivery with its own retry schedule."""
    send_limits.admit(actor.account.id, actor.livemode)
    with transaction() as session:
        owned_endpoint(session, actor, endpoint_id)
        original = session.get(WebhookDelivery, delivery_id)
        if original is None or original.endpoint_id != endpoint_id:
            raise NotFound(f"No delivery with id {delivery_id} for webhook endpoint {endpoint_id}.")
        event = session.get_one(Event, original.event_id)
        attempts = 1 if event.is_test else MAX_ATTEMPTS
        new_id = _send_now(session, event, endpoint_id, attempts)
    return _first_attempt(new_id)


def send_test(actor: Actor, event_type: str, endpoint_id: int | None) -> DeliveryRecord:
    """Send a sample ``event_type`` event to one endpoint (the only one, if ``endpoint_id`` is omitted)."""
    with transaction() as session:
        endpoint = _test_target(session, actor, endpoint_id)
    send_limits.admit(actor.account.id, actor.livemode)
    with transaction() as session:
        base = links.base_url(links.account_host(session, actor.account.id))
        data = payloads.sample(event_type, base, branding.brand_in(session, actor.account).metadata())
        event = events.new_event(
            session, actor.account.id, event_type, data, is_test=True, livemode=actor.livemode
        )
        new_id = _send_now(session, event, endpoint.id, max_attempts=1)
    return _first_attempt(new_id)


# How long a test send or redelivery waits for its attempt before answering with the delivery as it is.
WAIT_SECONDS = 5.0
POLL_SECONDS = 0.05


def _send_now(session: Session, event: Event, endpoint_id: int, max_attempts: int) -> int:
    """A delivery due now, and a worker asked for it once this transaction commits; its id."""
    row = events.schedule_delivery(session, event, endpoint_id, max_attempts)
    send_after_commit(session, DELIVER_ONE_TASK, row.id)
    return row.id


def _first_attempt(delivery_id: int) -> DeliveryRecord:
    """The delivery once its first attempt is logged, or as it stands after ``WAIT_SECONDS``."""
    give_up = time.monotonic() + WAIT_SECONDS
    while True:
        with transaction() as session:
            _one_snapshot(session)
            [record] = _records(session, [session.get_one(WebhookDelivery, delivery_id)])
        if record.attempted or time.monotonic() >= give_up:
            return record
        time.sleep(POLL_SECONDS)


def _one_snapshot(session: Session) -> None:
    """Read deliveries and their attempts in one snapshot (called before the transaction's first
    statement): read apart, a worker committing in between shows an attempt beside a delivery still
    pending, where one attempt of one allowed is already failed."""
    session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def _test_target(session: Session, actor: Actor, endpoint_id: int | None) -> WebhookEndpoint:
    if endpoint_id is not None:
        return owned_endpoint(session, actor, endpoint_id)
    stmt = select(WebhookEndpoint).where(of_caller(actor)).limit(2)
    candidates = list(session.scalars(stmt))
    if len(candidates) != 1:
        problem = "has no webhook endpoint" if not candidates else "has several webhook endpoints"
        raise NoTestTarget(f"The account {problem}; name the one to test with endpointId.")
    return candidates[0]


def _records(session: Session, deliveries: list[WebhookDelivery]) -> list[DeliveryRecord]:
    ids = [delivery.id for delivery in deliveries]
    attempts: dict[int, list[WebhookAttempt]] = {delivery_id: [] for delivery_id in ids}
    stmt = select(WebhookAttempt).where(WebhookAttempt.delivery_id.in_(ids))
    for attempt in session.scalars(stmt.order_by(WebhookAttempt.number)):
        attempts[attempt.delivery_id].append(attempt)
    event_ids = {delivery.event_id for delivery in deliveries}
    found = {event.id: event for event in session.scalars(select(Event).where(Event.id.in_(event_ids)))}
    return [DeliveryRecord(d, found[d.event_id], attempts[d.id]) for d in deliveries]
