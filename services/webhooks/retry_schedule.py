"""Spec 6.4's retry schedule, in one place: the delivery sweeper, the outbox and the OpenAPI text read it."""

from __future__ import annotations

from datetime import timedelta

# The delay before attempt N+1, counted from attempt N (attempt 1 is immediate).
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=24),
)
# Six attempts in all: the first immediate, then one per delay.
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1


def described() -> str:
    """The delays as a person reads them: ``1 min, 5 min, 30 min, 2 h and 24 h``."""
    words = [_short(delay) for delay in RETRY_DELAYS]
    return ", ".join(words[:-1]) + " and " + words[-1]


def _short(delay: timedelta) -> str:
    minutes = int(delay.total_seconds()) // 60
    return f"{minutes // 60} h" if minutes % 60 == 0 else f"{minutes} min"
