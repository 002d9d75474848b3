"""Validations per UTC day of a billing period, from the charges that counted them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, timedelta

from sqlalchemy import Date, cast, func, select

from core import clock
from models.accounts import Account
from models.session import transaction
from models.usage import UsageCharge
from services.usage.periods import Period, period_containing


@dataclass(frozen=True)
class DayCount:
    day: date
    validations: int


def validations_per_day(account: Account) -> tuple[Period, list[DayCount]]:
    """The current period and every day of it up to today, days without validations included (as 0)."""
    now = clock.now()
    period = period_containing(account.billing_anchor, now)
    day = func.timezone("UTC", UsageCharge.charged_at)
    stmt = (
        select(cast(day, Date), func.sum(UsageCharge.validations))
        .where(UsageCharge.account_id == account.id)
        .where(UsageCharge.charged_at >= period.start, UsageCharge.charged_at < period.end)
        .group_by(cast(day, Date))
    )
    with transaction() as session:
        counted = {row[0]: int(row[1]) for row in session.execute(stmt)}
    first, last = period.start.astimezone(UTC).date(), min(now, period.end).astimezone(UTC).date()
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    return period, [DayCount(d, counted.get(d, 0)) for d in days]
