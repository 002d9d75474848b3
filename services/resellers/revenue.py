"""Money, exactly: what a sub-user earns the service in a calendar month, and the reseller's commission.

Revenue of a month = the tier's monthly price (spec 8.1) for each day the sub-user existed, divided by
the days of the month (a sub-user joining or leaving mid-month pays for its days; each day is billed at
the dearest tier held at any moment of it, so a switch down before midnight does not escape the day),
plus its billed overage: validations above 100% of its quota, each at its tier's price per validation
(monthly price / monthly volume). Amounts stay exact fractions of a dollar until a row is rounded,
half-up, to whole cents; the commission is then the rate applied to those cents, rounded the same way.
Totals are sums of rounded rows, so a report's totals always equal its rows' sum.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from dateutil.relativedelta import relativedelta

from models.accounts import Tier
from services.errors import InvalidField
from services.usage.plans import plan_for

PERIOD = re.compile(r"(\d{4})-(\d{2})")
FIRST_YEAR = 2000
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Month:
    """One calendar month in UTC, ``start`` inclusive, ``end`` exclusive."""

    start: datetime

    @property
    def end(self) -> datetime:
        end: datetime = self.start + relativedelta(months=1)
        return end

    @property
    def label(self) -> str:
        return self.start.strftime("%Y-%m")

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    def day_bounds(self) -> list[tuple[datetime, datetime]]:
        return [(self.start + i * DAY, self.start + (i + 1) * DAY) for i in range(self.days)]

    def following(self) -> Month:
        return Month(self.end)

    @classmethod
    def containing(cls, moment: datetime) -> Month:
        utc = moment.astimezone(UTC)
        return cls(datetime(utc.year, utc.month, 1, tzinfo=UTC))

    @classmethod
    def parse(cls, text: str) -> Month:
        """``YYYY-MM``; anything else is a 400 naming ``period``."""
        match = PERIOD.fullmatch(text.strip())
        if match is None or not 1 <= int(match[2]) <= 12 or int(match[1]) < FIRST_YEAR:
            raise InvalidField(
                "period", f"period must be a month written YYYY-MM (from {FIRST_YEAR}), got {text!r}."
            )
        return cls(datetime(int(match[1]), int(match[2]), 1, tzinfo=UTC))


def subscription_usd(tiers_by_day: Sequence[Tier | None], month: Month) -> Fraction:
    """The days a sub-user existed (its tier that day; None: it did not exist) at price / days in month."""
    dollar_days = sum(plan_for(tier).monthly_price_usd for tier in tiers_by_day if tier is not None)
    return Fraction(dollar_days, month.days)


def overage_usd(overage: int, tier: Tier) -> Fraction:
    """Validations above the quota, each at the tier's price per validation."""
    plan = plan_for(tier)
    return Fraction(overage * plan.monthly_price_usd, plan.monthly_volume)


def to_cents(usd: Fraction) -> int:
    """Round half-up to whole cents (amounts are never negative)."""
    return math.floor(usd * 100 + Fraction(1, 2))


def commission_cents(revenue_cents: int, rate_percent: Decimal) -> int:
    """``rate_percent`` of ``revenue_cents``, rounded half-up to whole cents."""
    return math.floor(Fraction(revenue_cents) * Fraction(rate_percent) / 100 + Fraction(1, 2))
