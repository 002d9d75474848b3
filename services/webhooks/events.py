"""Emit events: ``emit(session, account_id, event_type, data)`` inside the transaction of the change.

``emit`` writes the event (the outbox row) and one pending delivery per enabled endpoint subscribed to its
type, all in the caller's transaction: commit makes the change, the event and its deliveries durable
together; a rollback takes them all away. Nothing touches Redis or the network here. After commit, a
best-effort nudge asks a worker to make the first attempt at once; if Redis is down the nudge is lost and
the beat sweeper (``services.webhooks.delivery``) finds the due rows on its next tick instead.

Event listeners (``listener_queue``: ``python -m verimail_webhooks listen`` on a developer's machine) are
subscribers too: an event is queued for each live listener of its account and mode, in the same transaction.

Trade-off accepted: an event with no subscribed endpoint and no live listener is not stored (every single
validation emits ``validation.completed``; storing them all for nobody would grow the table without serving
anyone), so an endpoint created later does not receive events from before it existed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

import verimail_webhooks
from core import clock
from core.times import iso
from models.webhooks import DeliveryStatus, EndpointStatus, Event, WebhookDelivery, WebhookEndpoint
from services.webhooks import dispatch, listener_queue
from services.webhooks.errors import UnknownEventType
from services.webhooks.retry_schedule import MAX_ATTEMPTS

# The list is published with the receivers' module, so customers and the service share one definition.
EVENT_TYPES = verimail_webhooks.EVENT_TYPES


Data = dict[str, Any] | Callable[[], dict[str, Any]]


def emit(
    session: Session, account_id: int, event_type: str, data: Data, *, livemode: bool = True
) -> Event | None:
    """Record ``event_type`` for ``account_id`` and schedule its deliveries; returns the event, if stored.

    Call it in the same transaction as the change it reports. ``data`` must be JSON-serialisable (strings,
    numbers, booleans, lists, dicts; times as ISO 8601 strings, see ``iso``); a function returning it is
    called only when some endpoint or listener subscribes, so a payload that costs a query costs nothing
    otherwise. A test-mode event (``livemode`` False) goes to the account's test-mode endpoints and
    listeners only, and a live one to its live ones only.
    """
    events = emit_many(session, account_id, event_type, [data], livemode=livemode)
    return events[0] if events else None


def emit_many(
    session: Session, account_id: int, event_type: str, many: Sequence[Data], *, livemode: bool = True
) -> list[Event]:
    """``emit`` for several events of one type and account: the subscribers are looked up once, not per
    event (a re-checked list may report thousands of changes in one transaction)."""
    if event_type not in EVENT_TYPES:
        raise UnknownEventType(f"unknown event type {event_type!r}; spec 6.1 lists {EVENT_TYPES}")
    endpoint_ids = list(session.scalars(_subscribers(account_id, event_type, livemode)))
    listener_ids = listener_queue.live_listeners(session, account_id, event_type, livemode)
    if not endpoint_ids and not listener_ids:
        return []
    stored = []
    for data in many:
        payload = data() if callable(data) else data
        event = new_event(session, account_id, event_type, payload, livemode=livemode)
        for endpoint_id in endpoint_ids:
            schedule_delivery(session, event, endpoint_id, MAX_ATTEMPTS)
        listener_queue.enqueue(session, event, listener_ids)
        if endpoint_ids:
            dispatch.nudge_after_commit(session, event.id)
        stored.append(event)
    return stored


def new_event(
    session: Session,
    account_id: int,
    event_type: str,
    data: dict[str, Any],
    *,
    is_test: bool = False,
    livemode: bool = True,
) -> Event:
    """Insert an event row (no deliveries); ``emit`` and test sends share it."""
    event = Event(
        id=f"evt_{secrets.token_hex(16)}",
        account_id=account_id,
        type=event_type,
        data=data,
        created_at=clock.now(),
        is_test=is_test,
        livemode=livemode,
    )
    session.add(event)
    return event


def schedule_delivery(session: Session, event: Event, endpoint_id: int, max_attempts: int) -> WebhookDelivery:
    """A pending delivery of ``event`` to one endpoint, due now (spec 6.4: the first attempt is immediate)."""
    delivery = WebhookDelivery(
        endpoint_id=endpoint_id,
        event_id=event.id,
        status=DeliveryStatus.PENDING.value,
        attempt_count=0,
        max_attempts=max_attempts,
        next_attempt_at=clock.now(),
    )
    session.add(delivery)
    session.flush()
    return delivery


def envelope(event: Event) -> dict[str, Any]:
    """The spec 6.2 envelope, exactly what receivers get as the request body, with ``livemode`` (false
    for a test-mode event) so a receiver can tell sandbox traffic from real."""
    return {
        "id": event.id,
        "type": event.type,
        "timestamp": iso(event.created_at),
        "livemode": event.livemode,
        "data": event.data,
    }


def _subscribers(account_id: int, event_type: str, livemode: bool) -> Select[int]:
    return select(WebhookEndpoint.id).where(
        WebhookEndpoint.account_id == account_id,
        WebhookEndpoint.livemode == livemode,
        WebhookEndpoint.status == EndpointStatus.ENABLED.value,
        WebhookEndpoint.events.contains([event_type]),
    )
