"""Numbers shaped for pages: the quota gauge, the per-day chart, a key's rotation countdown."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from models.keys import ApiKey, KeyStatus
from services.keys import rotation_policy
from services.usage.daily import DayCount
from services.usage.quota import HARD_LIMIT_PERCENT, QuotaStatus

CHART_WIDTH, CHART_HEIGHT, CHART_BOTTOM = 720, 200, 24
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


def chart(days: list[DayCount]) -> tuple[list[Bar], int]:
    """Bars for an inline SVG, scaled to the busiest day; returns the bars and that day's count."""
    peak = max((day.validations for day in days), default=0)
    slot = CHART_WIDTH / max(len(days), 1)
    usable = CHART_HEIGHT - CHART_BOTTOM - 8
    bars = []
    for index, day in enumerate(days):
        height = usable * day.validations / peak if peak else 0
        y = CHART_HEIGHT - CHART_BOTTOM - height
        bars.append(
            Bar(
                round(index * slot + slot * 0.15, 2),
                round(y, 2),
                round(slot * 0.7, 2),
                round(height, 2),
                day.day.strftime("%d %b"),
                day.validations,
            )
        )
    return bars, peak


def days_to_rotation(key: ApiKey, now: datetime) -> int:
    """Whole days until day 90 (negative once past it: the key is in grace or already rotated)."""
    return math.ceil((rotation_policy.rotation_due_at(key) - now) / timedelta(days=1))


def nearing_rotation(keys: list[ApiKey], now: datetime) -> list[ApiKey]:
    return [
        key
        for key in keys
        if key.status != KeyStatus.INACTIVE and rotation_policy.rotation_due_at(key) - now <= NEARING_ROTATION
    ]
