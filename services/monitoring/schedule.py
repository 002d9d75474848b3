"""When a monitored list is next due: a week, or a calendar month (the day clamped in short months)."""

from __future__ import annotations

from datetime import datetime

from dateutil.relativedelta import relativedelta

from models.monitoring import Schedule

STEPS = {Schedule.WEEKLY: relativedelta(weeks=1), Schedule.MONTHLY: relativedelta(months=1)}


def next_after(schedule: Schedule, moment: datetime) -> datetime:
    later: datetime = moment + STEPS[schedule]
    return later
