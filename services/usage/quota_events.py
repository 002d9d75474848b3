"""The quota's three events (spec 6.1/6.3): ``quota.warning``, ``quota.exceeded``, ``quota.reset``.

All three are written through ``services.webhooks.events.emit`` inside the transaction that changed the
usage, so an event exists exactly when its change committed. Warning and exceeded fire once per period:
the charge that first takes usage to 80% (or 100%) sets ``warning_sent_at`` (``exceeded_sent_at``) while it
holds the period's row lock, and every later charge sees the column set. A batch that jumps over both
thresholds sends both, warning first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from core.times import iso
from models.usage import UsagePeriod
from services.usage.periods import Period
from services.usage.quota import QuotaStatus, warning_from
from services.webhooks import events


def on_charged(
    session: Session, row: UsagePeriod, status: QuotaStatus, *, sent: tuple[bool, bool], now: datetime
) -> None:
    """Send the threshold events this charge crossed; ``sent`` is (warning, exceeded) already sent."""
    warning_sent, exceeded_sent = sent
    if not warning_sent and status.used >= warning_from(status.limit):
        _mark(session, row.id, UsagePeriod.warning_sent_at, now)
        events.emit(session, row.account_id, "quota.warning", warning_payload(status, now))
    if not exceeded_sent and status.used >= status.limit:
        _mark(session, row.id, UsagePeriod.exceeded_sent_at, now)
        events.emit(session, row.account_id, "quota.exceeded", exceeded_payload(status))


def _mark(session: Session, period_id: int, column: Any, now: datetime) -> None:
    session.execute(update(UsagePeriod).where(UsagePeriod.id == period_id).values({column: now}))


def warning_payload(status: QuotaStatus, now: datetime) -> dict[str, Any]:
    """``projectedUsage``: the period's usage so far, extrapolated linearly to its end."""
    return {
        "limit": status.limit,
        "used": status.used,
        "remaining": status.remaining,
        "percentage": status.percentage,
        "daysRemaining": status.period.days_remaining(now),
        "projectedUsage": round(status.used / status.period.elapsed_fraction(now)),
    }


def exceeded_payload(status: QuotaStatus) -> dict[str, Any]:
    return {
        "limit": status.limit,
        "used": status.used,
        "graceLimit": status.hard_limit,
        "inGracePeriod": status.in_grace_period,
        "resetsAt": iso(status.period.end),
    }


def reset_payload(previous_usage: int, new_limit: int, period: Period) -> dict[str, Any]:
    return {
        "previousUsage": previous_usage,
        "newLimit": new_limit,
        "periodStart": iso(period.start),
        "periodEnd": iso(period.end),
    }
