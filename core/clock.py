"""The one clock of the service, so tests can freeze and move time instead of sleeping.

Every timestamp the service writes (key issue dates, audit entries, billing anchors) comes from ``now()``.
The override is process-wide module state: that is enough for the test process, and a separate process
(gunicorn, a Celery worker) always runs on real time, which is what production wants.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_frozen: datetime | None = None


def now() -> datetime:
    """The current instant as an aware UTC datetime (frozen when a test said so)."""
    return _frozen if _frozen is not None else datetime.now(UTC)


def freeze(at: datetime) -> None:
    """Stop time at ``at`` (must be timezone-aware) until ``move`` or ``unfreeze``."""
    if at.tzinfo is None:
        raise ValueError("freeze() needs an aware datetime; the service never stores naive times")
    global _frozen  # noqa: PLW0603 - the whole point of this module is one shared override
    _frozen = at.astimezone(UTC)


def move(delta: timedelta) -> None:
    """Advance (or rewind) a frozen clock, or freeze it at now + delta if it was running."""
    freeze(now() + delta)


def unfreeze() -> None:
    global _frozen  # noqa: PLW0603
    _frozen = None
