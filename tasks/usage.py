"""Usage tasks: the beat sweep that closes billing periods at each account's anchor.

Thin and idempotent: which periods ended, and whether they were already closed, is decided in Postgres
under row locks by ``services.usage.period_close``, so a duplicated or late tick closes nothing twice.
"""

from __future__ import annotations

from celery import shared_task

from services.usage import period_close
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def close_ended_periods() -> int:
    return period_close.close_ended_periods()


# Periods end at each account's own anchor instant, any second of the day. Charges switch to the new period
# at that instant by themselves; this sweep does the bookkeeping (close, overage, quota.reset) within a
# minute of it.
BEAT = [Every(close_ended_periods, 60.0)]
