"""Delivery attempts and the retry schedule (spec 3.3, 6.4), driven by ``next_attempt_at`` in Postgres.

``deliver_due`` is what the beat sweeper and the after-commit nudge run. It takes one due delivery at a
time with ``SELECT ... FOR UPDATE SKIP LOCKED`` and keeps that row lock while it sends and records the
attempt, so two workers sweeping at once each get different rows and an attempt is never sent twice; the
unique (delivery, number) pair on attempts backs that up in the schema.

Trade-offs accepted: a transaction stays open for as long as the receiver takes (at most 30 s), which
costs one pooled connection per concurrent send; in exchange there is no lease to expire and no second
state machine. If a worker dies after the receiver answered but before commit, the row is still due and
the attempt is sent again: at-least-once delivery, which spec 6.4 rule 4 tells receivers to expect.
"""

from __future__ import annotations

import json
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.webhooks import DeliveryStatus, Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from services import branding
from services.due_work import work_through_due
from services.webhooks import outbound
from services.webhooks.errors import DeliveryError
from services.webhooks.events import envelope
from services.webhooks.outbound import PostResult
from services.webhooks.retry_schedule import RETRY_DELAYS
from verimail_webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, compute_signature

SWEEP_LIMIT = 100


def deliver_due(*, event_id: str | None = None, limit: int = SWEEP_LIMIT) -> int:
    """Make one attempt for each due pending delivery (of ``event_id`` only, if given); returns how many."""
    return work_through_due(lambda session: _lock_next_due(session, event_id), attempt, limit=limit)


def _lock_next_due(session: Session, event_id: str | None) -> WebhookDelivery | None:
    stmt = (
        select(WebhookDelivery)
        .where(
            WebhookDelivery.status == DeliveryStatus.PENDING.value,
            WebhookDelivery.next_attempt_at <= clock.now(),
        )
        .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    if event_id is not None:
        stmt = stmt.where(WebhookDelivery.event_id == event_id)
    return session.scalars(stmt).one_or_none()


def attempt(session: Session, delivery: WebhookDelivery) -> WebhookAttempt:
    """Send ``delivery`` once (the caller holds its row lock), log the attempt and schedule what follows."""
    endpoint = session.get_one(WebhookEndpoint, delivery.endpoint_id)
    body = signed_body(session.get_one(Event, delivery.event_id))
    attempted_at = clock.now()
    result: PostResult | None = None
    error: str | None = None
    white_label = branding.brand_of_id(session, endpoint.account_id).white_label
    user_agent = outbound.NEUTRAL_USER_AGENT if white_label else outbound.USER_AGENT
    try:
        result = outbound.post(
            endpoint.url, body, signature_headers(endpoint.secret, body), user_agent=user_agent
        )
    except DeliveryError as failure:
        error = str(failure)
    logged = WebhookAttempt(
        delivery_id=delivery.id,
        number=delivery.attempt_count + 1,
        attempted_at=attempted_at,
        request_body=body.decode(),
        status_code=result.status if result else None,
        response_excerpt=result.excerpt if result else None,
        response_time_ms=result.elapsed_ms if result else None,
        error=error,
    )
    session.add(logged)
    _advance(delivery, succeeded=result is not None and 200 <= result.status < 300)
    session.flush()
    return logged


def _advance(delivery: WebhookDelivery, *, succeeded: bool) -> None:
    """Spec 3.3: delivered on 2xx; otherwise wait the next delay, or fail after the last attempt."""
    now = clock.now()
    delivery.attempt_count += 1
    if succeeded or delivery.attempt_count >= delivery.max_attempts:
        delivery.status = (DeliveryStatus.DELIVERED if succeeded else DeliveryStatus.FAILED).value
        delivery.next_attempt_at, delivery.completed_at = None, now
        return
    delivery.next_attempt_at = now + RETRY_DELAYS[delivery.attempt_count - 1]


def signed_body(event: Event) -> bytes:
    """The envelope as compact JSON; these exact bytes are signed, sent and logged."""
    return json.dumps(envelope(event), separators=(",", ":"), ensure_ascii=False).encode()


def signature_headers(secret: str, body: bytes) -> dict[str, str]:
    """Spec 6.4 headers. The timestamp is real wall-clock time, not ``clock.now()``: receivers compare it
    with their own clock to refuse replays, so it must be the moment the request is actually sent."""
    timestamp = str(int(time.time()))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: compute_signature(secret, timestamp, body)}
