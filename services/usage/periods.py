"""Billing periods: the monthly windows a quota counts in, cut at each account's own billing anchor.

A period starts at ``anchor + k months`` and ends where period ``k + 1`` starts. Month arithmetic is
``dateutil.relativedelta`` from the *anchor*, never from the previous period, so an account anchored on
the 31st gets Feb 28 (or 29) and then Mar 31 again, instead of drifting to the 28th for ever after one
short month. The time of day of the anchor is kept: periods turn over at the instant the plan started.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from dateutil.relativedelta import relativedelta

SECONDS_PER_DAY = 86_400


@dataclass(frozen=True)
class Period:
    """One billing period, ``start`` inclusive and ``end`` exclusive."""

    start: datetime
    end: datetime

    def days_remaining(self, at: datetime) -> int:
        """Whole days until the quota resets, rounded up: 0 only once the period is over."""
        seconds = max((self.end - at).total_seconds(), 0.0)
        return int(-(-seconds // SECONDS_PER_DAY))

    def elapsed_fraction(self, at: datetime) -> float:
        """How much of the period has gone by, in (0, 1]; never 0, so projections never divide by it."""
        length = (self.end - self.start).total_seconds()
        elapsed = min(max((at - self.start).total_seconds(), 1.0), length)
        return elapsed / length


def _nth_start(anchor: datetime, n: int) -> datetime:
    start: datetime = anchor + relativedelta(months=n)
    return start


def period_containing(anchor: datetime, at: datetime) -> Period:
    """The period of an account anchored at ``anchor`` that contains ``at`` (before the anchor: the first).

    The last answer per anchor is kept: every charge asks, and the month arithmetic costs a fortieth of a
    quick validation's CPU. A kept period is reused only when it contains ``at``, and only one
    period of an anchor does, so the answer is the same."""
    known = _LAST.get(anchor)
    if known is not None and known.start <= at < known.end:
        return known
    found = _period_containing(anchor, at)
    if len(_LAST) >= _LAST_MAX:
        _LAST.clear()  # bounded; one recomputation per anchor after a clear
    _LAST[anchor] = found
    return found


_LAST: dict[datetime, Period] = {}
_LAST_MAX = 10_000


def _period_containing(anchor: datetime, at: datetime) -> Period:
    anchor = anchor.astimezone(UTC)
    months = (at.year - anchor.year) * 12 + (at.month - anchor.month)
    n = max(months, 0)
    # The month difference is right or one too high (``at`` lies before this month's anchor day/time).
    if n > 0 and _nth_start(anchor, n) > at:
        n -= 1
    return Period(_nth_start(anchor, n), _nth_start(anchor, n + 1))


def seconds_until(instant: datetime, now: datetime) -> int:
    """Whole seconds to wait, rounded up and at least 1 (a ``Retry-After: 0`` invites a busy loop)."""
    return max(math.ceil((instant - now).total_seconds()), 1)
