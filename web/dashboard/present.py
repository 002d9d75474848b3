"""Numbers shaped for pages: the quota gauge, the per-day chart, a key's rotation countdown."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from models.keys import ApiKey, KeyStatus
from services.keys import rotation_policy
from services.usage.daily import DayCount
from services.usage.periods import Period
from services.usage.quota import HARD_LIMIT_PERCENT, QuotaStatus

CHART_WIDTH, CHART_HEIGHT, CHART_BOTTOM = 720, 180, 2
TICK_EVERY = 7  # days between labels on the chart's axis
NEARING_ROTATION = timedelta(days=14)


@dataclass(frozen=True)
class Gauge:
    """The quota as a bar that runs to 120% (the hard limit), marked at 80% and 100%."""

    state: str
    used: int
    limit: int
    hard_limit: int
    percent: float  # of the quota (up to 120)
    fill: float  # of the bar's width (the bar is 120%)

    @staticmethod
    def of(quota: QuotaStatus) -> Gauge:
        fill = min(quota.used / max(quota.hard_limit, 1), 1.0) * 100
        return Gauge(
            quota.state.value, quota.used, quota.limit, quota.hard_limit, quota.percentage, round(fill, 2)
        )

    @staticmethod
    def mark(percent_of_quota: int) -> float:
        return round(percent_of_quota * 100 / HARD_LIMIT_PERCENT, 2)


GAUGE_MARKS = {80: Gauge.mark(80), 100: Gauge.mark(100)}  # where the warning and grace lines sit on the bar


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int


@dataclass(frozen=True)
class Tick:
    """A date under the chart, in HTML rather than in the SVG, so it stays readable on a phone."""

    percent: float  # of the chart's width, where the label starts (or ends, for the last)
    label: str
    last: bool = False  # ends at the right edge instead of running past it


@dataclass(frozen=True)
class Chart:
    bars: list[Bar]
    ticks: list[Tick]
    peak: int  # the busiest day's count, the top of the scale


def chart(period: Period, days: list[DayCount]) -> Chart:
    """Bars for an inline SVG with one slot per day of the whole billing period (days to come are empty
    slots): the first day of data is one day wide, not the whole chart. Scaled to the busiest day."""
    dates = period_dates(period)
    slot = CHART_WIDTH / max(len(dates), len(days), 1)
    peak = max((day.validations for day in days), default=0)
    bars = [_bar(index, slot, day, peak) for index, day in enumerate(days)]
    return Chart(bars, _ticks(dates, slot), peak)


def period_dates(period: Period) -> list[date]:
    """Every UTC date the period touches (its end is exclusive)."""
    first = period.start.astimezone(UTC).date()
    last = (period.end - timedelta(microseconds=1)).astimezone(UTC).date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _bar(index: int, slot: float, day: DayCount, peak: int) -> Bar:
    usable = CHART_HEIGHT - CHART_BOTTOM - 8
    height = usable * day.validations / peak if peak else 0
    x, y = index * slot + slot * 0.15, CHART_HEIGHT - CHART_BOTTOM - height
    label = day.day.strftime("%d %b")
    return Bar(round(x, 2), round(y, 2), round(slot * 0.7, 2), round(height, 2), label, day.validations)


def _ticks(dates: list[date], slot: float) -> list[Tick]:
    """A label every week from the period's first day, and its last day at the right edge."""
    share = slot * 100 / CHART_WIDTH
    # Weekly labels stop more than a week before the end: two labels need about that much room on a phone.
    weekly = range(0, len(dates) - TICK_EVERY, TICK_EVERY)
    ticks = [Tick(round(index * share, 2), dates[index].strftime("%d %b")) for index in weekly]
    return [*ticks, Tick(100.0, dates[-1].strftime("%d %b"), last=True)] if dates else []


def days_to_rotation(key: ApiKey, now: datetime) -> int:
    """Whole days until day 90 (negative once past it: the key is in grace or already rotated)."""
    return math.ceil((rotation_policy.rotation_due_at(key) - now) / timedelta(days=1))


def nearing_rotation(keys: list[ApiKey], now: datetime) -> list[ApiKey]:
    return [
        key
        for key in keys
        if key.status != KeyStatus.INACTIVE and rotation_policy.rotation_due_at(key) - now <= NEARING_ROTATION
    ]
