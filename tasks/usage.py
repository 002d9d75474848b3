"""Usage tasks: the beat sweep that closes billing periods at each account's anchor.

Thin and idempotent: which periods ended, and whether they were already closed, is decided in Postgres
under row locks by ``services.usage.period_close``, so a duplicated or late tick closes nothing twice.
"""

from __future__ import annotations

from celery import shared_task

from services.usage import period_close


@shared_task(name="tasks.usage.close_ended_periods", ignore_result=True)  # type: ignore[untyped-decorator]
def close_ended_periods() -> int:
    return period_close.close_ended_periods()
