"""Spec 3.1's calendar as pure functions of a key and an instant: what is due, and when a key stops working.

Days count from the secret's issue (``secret_issued_at``), in whole periods of 24 hours: "day 83" is 83
days after the secret was issued. Creation, a manual refresh and an automatic rotation all restart it.
Nothing here reads the database or the clock, so the sweeper, the web tier's warning header and the
emails agree by construction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from models.keys import ApiKey, KeyStatus, Milestone

WARNING_DAYS: dict[Milestone, int] = {
    Milestone.WARNING_DAY_83: 83,
    Milestone.WARNING_DAY_86: 86,
    Milestone.WARNING_DAY_89: 89,
}
ROTATION_DAY = 90
DEACTIVATION_DAY = 97
FIRST_ACTION_DAY = min(WARNING_DAYS.values())


def age(key: ApiKey, now: datetime) -> timedelta:
    return now - key.secret_issued_at


def rotation_due_at(key: ApiKey) -> datetime:
    """Day 90: the secret is rotated automatically, or the key enters its grace period."""
    return key.secret_issued_at + timedelta(days=ROTATION_DAY)


def stops_working_at(key: ApiKey) -> datetime:
    """Day 97: a key without auto-rotation that was not refreshed is deactivated."""
    return key.secret_issued_at + timedelta(days=DEACTIVATION_DAY)


def next_milestone(key: ApiKey, now: datetime) -> Milestone | None:
    """The milestone ``key`` has reached at ``now`` and that comes next in its life, if any.

    Only the latest warning reached is due: a sweeper that was down on day 83 and runs on day 87 sends the
    "4 days left" warning, not a stale "7 days left" one. The caller records what it applied, so asking
    again after applying returns either a later milestone or one already recorded.
    """
    days = age(key, now) / timedelta(days=1)
    if key.status == KeyStatus.INACTIVE or days < FIRST_ACTION_DAY:
        return None
    if days >= ROTATION_DAY and key.auto_rotate:  # a grace key whose owner turned auto-rotate on, too
        return Milestone.ROTATED
    if key.status == KeyStatus.GRACE:
        return Milestone.DEACTIVATED if days >= DEACTIVATION_DAY else None
    if days >= ROTATION_DAY:
        return Milestone.GRACE
    return max((m for m, day in WARNING_DAYS.items() if days >= day), key=WARNING_DAYS.__getitem__)
