"""The delivery log of an endpoint, redelivery, and test sends (``POST /webhooks/test``).

Redelivery and test sends make their attempt inside the transaction that creates the delivery row, so the
beat sweeper cannot see the row before the caller's own attempt has been made and logged: the caller gets
the outcome of exactly that attempt, and nobody sends it twice. A redelivery that fails then follows the
normal retry schedule; a test send is attempted once (its caller is watching, and retries of a sample
event would only surprise the receiver later).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.session import transaction
from models.webhooks import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from services import branding, links
from services.auth import AuthContext
from services.errors import InvalidField, NotFound
from services.webhooks import delivery, events, payloads
from services.webhooks.endpoints import owned_endpoint
from services.webhooks.retry_schedule import MAX_ATTEMPTS


@dataclass(frozen=True)
class DeliveryRecord:
    """One delivery as the log shows it: the event sent and every attempt, oldest first."""

    delivery: WebhookDelivery
    event: Event
    attempts: list[WebhookAttempt]


@dataclass(frozen=True)
class DeliveryPage:
    records: list[DeliveryRecord]
    has_more: bool


def list_deliveries(
    actor: AuthContext, endpoint_id: int, *, limit: int, starting_after: int | None = None
) -> DeliveryPage:
    """The endpoint's deliveries, newest first; ``starting_after`` (a delivery id) pages back in time."""
    with transaction() as session:
        owned_endpoint(session, actor, endpoint_id)
        stmt = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
        if starting_after is not None:
            stmt = stmt.where(WebhookDelivery.id < starting_after)
        rows = list(session.scalars(stmt.order_by(WebhookDelivery.id.desc()).limit(limit + 1)))
        return DeliveryPage(_records(session, rows[:limit]), has_more=len(rows) > limit)


def redeliver(actor: AuthContext, endpoint_id: int, delivery_id: int) -> DeliveryRecord:
    """Send a delivery's event to the endpoint again now, as a new delivery with its own retry schedule."""
    with transaction() as session:
        owned_endpoint(session, actor, endpoint_id)
        original = session.get(WebhookDelivery, delivery_id)
        if original is None or original.endpoint_id != endpoint_id:
            raise NotFound(f"No delivery with id {delivery_id} for webhook endpoint {endpoint_id}.")
        event = session.get_one(Event, original.event_id)
        attempts = 1 if event.is_test else MAX_ATTEMPTS
        return _send_now(session, event, endpoint_id, attempts)


def send_test(actor: AuthContext, event_type: str, endpoint_id: int | None) -> DeliveryRecord:
    """Send a sample ``event_type`` event to one endpoint (the only one, if ``endpoint_id`` is omitted)."""
    with transaction() as session:
        endpoint = _test_target(session, actor, endpoint_id)
        base = links.base_url(links.account_host(session, actor.account.id))
        data = payloads.sample(event_type, base, branding.brand_in(session, actor.account).metadata())
        event = events.new_event(session, actor.account.id, event_type, data, is_test=True)
        return _send_now(session, event, endpoint.id, max_attempts=1)


def _send_now(session: Session, event: Event, endpoint_id: int, max_attempts: int) -> DeliveryRecord:
    row = events.schedule_delivery(session, event, endpoint_id, max_attempts)
    attempt = delivery.attempt(session, row)
    return DeliveryRecord(row, event, [attempt])


def _test_target(session: Session, actor: AuthContext, endpoint_id: int | None) -> WebhookEndpoint:
    if endpoint_id is not None:
        return owned_endpoint(session, actor, endpoint_id)
    stmt = select(WebhookEndpoint).where(WebhookEndpoint.account_id == actor.account.id).limit(2)
    candidates = list(session.scalars(stmt))
    if len(candidates) != 1:
        problem = "has no webhook endpoint" if not candidates else "has several webhook endpoints"
        raise InvalidField("endpointId", f"The account {problem}; name the one to test with endpointId.")
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
