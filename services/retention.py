"""Retention: finished webhook deliveries, their events and sent or failed emails go after N days.

Without it the outbox tables grow forever: every delivery keeps its attempts (with the body sent and a
response excerpt) and every owner email its text and HTML. ``OUTBOX_RETENTION_DAYS`` (30 by default, as
long as the delivery log is useful for debugging a receiver) bounds them. Only finished rows go:

- a delivery ``delivered`` or ``failed`` whose ``completed_at`` is older than the cut-off, with its
  attempts (foreign key cascade);
- an event older than the cut-off that no delivery refers to any more (so never the event of a pending
  delivery, whose retries still need its payload);
- an email ``sent`` or ``failed`` queued before the cut-off (a rotation notice keeps its claim; its link
  to the email becomes null);
- a confirmed verdict token's row once the token has expired (no cut-off: past its expiry the token cannot
  be presented again, so the row guards nothing);
- a recent verdict older than the longest ``options.maxAge`` (30 days): no request may use it any more (the
  result stays in its job's item).

Rows that are still due (pending deliveries, queued emails) are never deleted, whatever their age. Deletes
run in batches of ``BATCH`` rows, each its own short transaction, so a large first purge never holds
locks for long. Trade-off accepted: the cut-off columns carry no index of their own; the oldest rows sit
at the start of each table, so each batch finds its rows early in a scan, and the sweep runs hourly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Delete, delete, exists, select, tuple_
from sqlalchemy.orm import InstrumentedAttribute

from core import clock
from models.browser import ConfirmedToken
from models.jobs import RecentVerdict
from models.mail import MailStatus, OutboundMail
from models.session import transaction
from models.webhooks import DeliveryStatus, Event, WebhookDelivery
from settings import MAX_AGE_RANGE, get_settings

BATCH = 1000
_FINISHED_DELIVERY = (DeliveryStatus.DELIVERED.value, DeliveryStatus.FAILED.value)
_FINISHED_MAIL = (MailStatus.SENT.value, MailStatus.FAILED.value)


@dataclass(frozen=True)
class Purged:
    """How many rows of each kind one run deleted (attempts go with their deliveries)."""

    deliveries: int
    events: int
    mail: int
    confirmations: int
    verdicts: int


def purge_expired() -> Purged:
    """Delete every finished record older than ``OUTBOX_RETENTION_DAYS``; safe to run at any time."""
    cutoff = clock.now() - timedelta(days=get_settings().outbox_retention_days)
    return Purged(
        deliveries=_delete_in_batches(_old_deliveries(cutoff)),
        events=_delete_in_batches(_orphaned_events(cutoff)),
        mail=_delete_in_batches(_old_mail(cutoff)),
        confirmations=_delete_in_batches(_expired_confirmations(clock.now())),
        verdicts=_delete_in_batches(_stale_verdicts(clock.now() - timedelta(seconds=MAX_AGE_RANGE[1]))),
    )


def _old_deliveries(cutoff: datetime) -> Delete:
    return _finished_before(WebhookDelivery, _FINISHED_DELIVERY, WebhookDelivery.completed_at, cutoff)


def _orphaned_events(cutoff: datetime) -> Delete:
    referred = exists().where(WebhookDelivery.event_id == Event.id)
    batch = select(Event.id).where(Event.created_at < cutoff, ~referred).limit(BATCH)
    return delete(Event).where(Event.id.in_(batch.scalar_subquery()))


def _old_mail(cutoff: datetime) -> Delete:
    return _finished_before(OutboundMail, _FINISHED_MAIL, OutboundMail.queued_at, cutoff)


def _expired_confirmations(now: datetime) -> Delete:
    batch = select(ConfirmedToken.token_id).where(ConfirmedToken.expires_at < now).limit(BATCH)
    return delete(ConfirmedToken).where(ConfirmedToken.token_id.in_(batch.scalar_subquery()))


def _stale_verdicts(cutoff: datetime) -> Delete:
    key = (RecentVerdict.account_id, RecentVerdict.variant, RecentVerdict.email)
    batch = select(*key).where(RecentVerdict.checked_at < cutoff).limit(BATCH)
    return delete(RecentVerdict).where(tuple_(*key).in_(batch))


def _finished_before(
    table: type[WebhookDelivery | OutboundMail],
    finished: tuple[str, ...],
    moment: InstrumentedAttribute[Any],
    cutoff: datetime,
) -> Delete:
    """One batch of ``table``'s rows in a ``finished`` status whose ``moment`` is before ``cutoff``."""
    batch = select(table.id).where(table.status.in_(finished), moment < cutoff).limit(BATCH)
    return delete(table).where(table.id.in_(batch.scalar_subquery()))


def _delete_in_batches(statement: Delete) -> int:
    deleted = 0
    while True:
        with transaction() as session:
            # A DELETE answers with a cursor result, whose row count the generic Result type hides.
            count = cast("CursorResult[Any]", session.execute(statement)).rowcount
        deleted += count
        if count < BATCH:
            return deleted
