"""What the account's monitored lists will spend before its quota resets, for the usage report.

Each active list runs once per schedule step from its next date until the period's end, and each run is
charged its distinct addresses, as any bulk list: a user reading their usage sees that spend coming.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from models.monitoring import MonitoredList, Schedule
from models.session import transaction
from services.monitoring.schedule import next_after


@dataclass(frozen=True)
class Forecast:
    lists: int  # active (not paused) monitored lists
    runs: int  # runs due before ``until``
    validations: int  # what those runs will be charged


def before(account_id: int, livemode: bool, until: datetime) -> Forecast:
    """The runs of the account's active lists (in one mode) due before ``until``."""
    with transaction() as session:
        kept = session.execute(
            select(MonitoredList.schedule, MonitoredList.next_run_at, MonitoredList.addresses).where(
                MonitoredList.account_id == account_id,
                MonitoredList.livemode == livemode,
                ~MonitoredList.paused,
            )
        ).all()
    runs = [_runs(Schedule(schedule), due, until) for schedule, due, _ in kept]
    return Forecast(
        len(kept), sum(runs), sum(count * row.addresses for count, row in zip(runs, kept, strict=True))
    )


def _runs(schedule: Schedule, due: datetime, until: datetime) -> int:
    count = 0
    while due < until:
        count, due = count + 1, next_after(schedule, due)
    return count
