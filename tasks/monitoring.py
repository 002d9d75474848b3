"""Monitored lists' tasks: the beat sweep that starts due re-checks, and the comparison of finished runs.

Thin and idempotent: the run's state in Postgres (``services.monitoring.runs``, ``compare``) decides whether
there is anything to do, so a duplicated tick or a redelivered message starts and announces nothing twice.
"""

from __future__ import annotations

from celery import shared_task

from services.broker import COMPARE_RUNS_TASK
from services.monitoring import compare, runs
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def recheck_due_lists() -> int:
    """Start the runs that are due, then compare any finished run whose message was lost."""
    started = runs.start_due()
    return started + compare.compare_finished()


@shared_task(name=COMPARE_RUNS_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def compare_runs(job_ids: list[int]) -> int:
    return compare.compare_finished(job_ids)


# Schedules are weekly or monthly: a minute's delay is nothing, and one sweep catches every missed tick.
BEAT = [Every(recheck_due_lists, 60.0)]
