"""Closing billing periods at each account's anchor: the work of the beat task ``tasks.usage``.

Counters start again at the anchor instant whatever beat does: a charge always lands in the period that
contains *now*. The sweep does the bookkeeping: it freezes the ended period (``closed_at`` and ``overage``,
the validations past the quota that billing charges for), opens the next one and emits ``quota.reset``,
all in one transaction, so each ended period is closed and announced exactly once. Rows are taken with
``FOR UPDATE SKIP LOCKED``: two beat ticks or two workers running it at once close different rows, never
the same one twice. A missed tick only delays the bookkeeping; a sweep after a long outage walks through
every period that ended, one ``quota.reset`` each.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.session import transaction
from models.usage import UsagePeriod
from services.usage import quota_events
from services.usage.charging import open_period
from services.usage.periods import Period
from services.usage.plans import plan_for
from services.webhooks import events

BATCH_SIZE = 200


def close_ended_periods() -> int:
    """Close every period that has ended by now; returns how many were closed. Safe to run concurrently."""
    total = 0
    while closed := _close_batch(clock.now()):
        total += closed
    return total


def _close_batch(now: datetime) -> int:
    stmt = (
        select(UsagePeriod)
        .where(UsagePeriod.closed_at.is_(None), UsagePeriod.period_end <= now)
        .order_by(UsagePeriod.period_end)
        .limit(BATCH_SIZE)
        .with_for_update(skip_locked=True)
    )
    with transaction() as session:
        rows = list(session.scalars(stmt))
        for row in rows:
            _close(session, row, now)
    return len(rows)


def _close(session: Session, row: UsagePeriod, now: datetime) -> None:
    row.closed_at = now
    row.overage = max(row.used - row.quota_limit, 0)
    account = session.get_one(Account, row.account_id)
    following = open_period(session, account, row.period_end)
    payload = quota_events.reset_payload(
        previous_usage=row.used,
        new_limit=plan_for(account.tier).monthly_volume,
        period=Period(following.period_start, following.period_end),
    )
    events.emit(session, account.id, "quota.reset", payload)
