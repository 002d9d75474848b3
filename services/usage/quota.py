"""The monthly quota's states (spec 3.2) and the overage buffer (spec 8.2), as pure arithmetic.

Thresholds are whole validations, computed once here so every layer agrees on the exact boundary:
``warning_from`` is the first count at or above 80% (rounded up), ``hard_limit`` the last count allowed,
120% rounded down (a plan's 120% is never exceeded by rounding). For the 5,000 of Growth: warning from
4,000, grace from 5,000, and 6,000 is the last validation that runs; the 6,001st is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from services.usage.periods import Period

WARNING_PERCENT = 80
HARD_LIMIT_PERCENT = 120


class QuotaState(StrEnum):
    """Spec 3.2. ``blocked``: the hard limit is used up, nothing more runs until the period resets."""

    NORMAL = "normal"
    WARNING = "warning"
    GRACE = "grace"
    BLOCKED = "blocked"


def warning_from(limit: int) -> int:
    return -(-limit * WARNING_PERCENT // 100)


def hard_limit_of(limit: int) -> int:
    return limit * HARD_LIMIT_PERCENT // 100


@dataclass(frozen=True)
class QuotaStatus:
    """An account's quota in one period, as ``GET /api/usage`` and the warning headers report it."""

    limit: int
    used: int
    period: Period
    publishable_used: int = 0  # of ``used``, answered to publishable keys (read by ``current_status`` only)

    @property
    def hard_limit(self) -> int:
        return hard_limit_of(self.limit)

    @property
    def remaining(self) -> int:
        """Validations left within the quota itself (0 in grace; ``hard_limit`` says how far grace goes)."""
        return max(self.limit - self.used, 0)

    @property
    def percentage(self) -> float:
        return round(self.used * 100 / self.limit, 2)

    @property
    def in_grace_period(self) -> bool:
        return self.used >= self.limit

    @property
    def state(self) -> QuotaState:
        if self.used >= self.hard_limit:
            return QuotaState.BLOCKED
        if self.used >= self.limit:
            return QuotaState.GRACE
        if self.used >= warning_from(self.limit):
            return QuotaState.WARNING
        return QuotaState.NORMAL
