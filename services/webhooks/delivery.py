"""Delivery attempts and the retry schedule (spec 3.3, 6.4), driven by ``next_attempt_at`` in Postgres.

An attempt is claim, commit, send, record - never a transaction or a row lock held while a receiver
thinks (up to 30 s, or a trickle it takes the wall-clock deadline of ``outbound`` to cut):

1. claim: in a short transaction, the next due pending row (``FOR UPDATE SKIP LOCKED``, so concurrent
   sweepers take different rows) whose account has a free delivery slot gets ``next_attempt_at`` moved
   ``LEASE`` ahead - that is the lease: a worker that dies mid-send leaves the row due again then;
2. send, with no transaction open;
3. record the attempt and the next step in a second short transaction, only if nobody recorded this
   attempt number meanwhile (a lease that expired while we sent); the unique (delivery, number) pair on
   attempts backs that up in the schema.

Per-account slots (``ACCOUNT_SLOTS`` fleet-wide, a Redis lease set) keep one customer's slow receivers
from occupying every webhook worker: a delivery whose account is at its cap is left due for the next
sweep. Each mode of an account has its own slots (``slot_owner``): a flood of test-mode deliveries to a
slow receiver never holds back the account's live ones, nor the reverse.

Trade-offs accepted: a worker that dies after the receiver answered but before recording resends the
attempt after the lease (at-least-once, which spec 6.4 rule 4 tells receivers to expect); and while an
attempt is in flight the log shows the lease's end as ``nextAttemptAt``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import Select, func, select, tuple_

from core import clock
from models.session import transaction
from models.webhooks import DeliveryStatus, Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from services import branding, lease_sets
from services.webhooks import outbound
from services.webhooks.errors import DeliveryError
from services.webhooks.events import envelope
from services.webhooks.outbound import PostResult
from services.webhooks.retry_schedule import RETRY_DELAYS
from verimail_webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, compute_signature

SWEEP_LIMIT = 100
# Deliveries of one account in flight at once, across every webhook worker.
ACCOUNT_SLOTS = 4
SLOTS = "webhook-slots"
# Longer than the 30 s deadline plus recording: a claim outlives its send unless its worker died.
LEASE = timedelta(seconds=outbound.TIMEOUT_SECONDS + 60)
CANDIDATES = 20


@dataclass(frozen=True)
class Claim:
    """One attempt a worker has taken on: what to send where, and the account slot it holds."""

    delivery_id: int
    number: int
    owner: str  # whose slots it holds: the account's, in the endpoint's mode (``slot_owner``)
    url: str
    secret: str
    body: bytes
    slot: str
    user_agent: str  # neutral for white-labelled accounts: nothing may name this service to their receivers


def deliver_due(
    *, event_id: str | None = None, delivery_id: int | None = None, limit: int = SWEEP_LIMIT
) -> int:
    """Make one attempt for each due pending delivery (of one event or delivery, if given), one at a time,
    until none is due or ``limit`` were made; returns how many were made."""
    done = 0
    while done < limit and (claim := claim_next(event_id=event_id, delivery_id=delivery_id)) is not None:
        try:
            send_and_record(claim)
        finally:
            lease_sets.release(SLOTS, claim.owner, claim.slot)
        done += 1
    return done


def count_due() -> int:
    """Pending deliveries due now and not claimed (the sweeper's fan-out)."""
    with transaction() as session:
        return session.scalar(select(func.count()).select_from(_due().subquery())) or 0


def claim_next(*, event_id: str | None = None, delivery_id: int | None = None) -> Claim | None:
    """Lease the next due delivery whose account has a free slot, and commit (see the module docstring).

    One row is locked at a time (``SKIP LOCKED``, ``LIMIT 1``), so concurrent claimers each get their own
    row at once; rows of an account's mode found at its cap are passed over, up to ``CANDIDATES`` of them.
    """
    base = _due()
    if event_id is not None:
        base = base.where(WebhookDelivery.event_id == event_id)
    if delivery_id is not None:
        base = base.where(WebhookDelivery.id == delivery_id)
    with transaction() as session:
        full: set[tuple[int, bool]] = set()
        for _ in range(CANDIDATES):
            stmt = (
                base.where(tuple_(WebhookEndpoint.account_id, WebhookEndpoint.livemode).not_in(full))
                if full
                else base
            )
            row = session.execute(stmt.limit(1).with_for_update(of=WebhookDelivery, skip_locked=True)).first()
            if row is None:
                return None
            delivery, endpoint = row
            owner = slot_owner(endpoint.account_id, endpoint.livemode)
            slot = lease_sets.try_acquire(SLOTS, owner, ACCOUNT_SLOTS, LEASE.total_seconds())
            if slot is None:
                full.add((endpoint.account_id, endpoint.livemode))
                continue
            delivery.next_attempt_at = clock.now() + LEASE
            body = signed_body(session.get_one(Event, delivery.event_id))
            number = delivery.attempt_count + 1
            white_label = branding.brand_of_id(session, endpoint.account_id).white_label
            agent = outbound.NEUTRAL_USER_AGENT if white_label else outbound.USER_AGENT
            return Claim(delivery.id, number, owner, endpoint.url, endpoint.secret, body, slot, agent)
    return None


def slot_owner(account_id: int, livemode: bool) -> str:
    """The holder of an account's delivery slots in one mode: live keeps the account id alone."""
    return str(account_id) if livemode else f"{account_id}:test"


def _due() -> Select[WebhookDelivery, WebhookEndpoint]:
    return (
        select(WebhookDelivery, WebhookEndpoint)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(
            WebhookDelivery.status == DeliveryStatus.PENDING.value,
            WebhookDelivery.next_attempt_at <= clock.now(),
        )
        .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
    )


def send_and_record(claim: Claim) -> WebhookAttempt | None:
    """Send the claimed attempt, then record it; None when another worker recorded it first."""
    attempted_at = clock.now()
    result: PostResult | None = None
    error: str | None = None
    try:
        result = outbound.post(
            claim.url, claim.body, signature_headers(claim.secret, claim.body), user_agent=claim.user_agent
        )
    except DeliveryError as failure:
        error = str(failure)
    with transaction() as session:
        delivery = session.get(WebhookDelivery, claim.delivery_id, with_for_update=True)
        if delivery is None or delivery.attempt_count != claim.number - 1:
            return None  # deleted meanwhile, or our lease ran out and another worker recorded this attempt
        logged = WebhookAttempt(
            delivery_id=delivery.id,
            number=claim.number,
            attempted_at=attempted_at,
            request_body=claim.body.decode(),
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
