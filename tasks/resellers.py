"""Reseller tasks: the beat sweep that closes ended months' commission reports.

Thin and idempotent: a month is closed at most once (unique per reseller and month, decided in Postgres by
``services.resellers.commissions``), so a duplicated or late tick closes nothing twice.
"""

from __future__ import annotations

from celery import shared_task

from services.resellers import commissions


@shared_task(name="tasks.resellers.close_commission_months", ignore_result=True)  # type: ignore[untyped-decorator]
def close_commission_months() -> int:
    return commissions.close_ended_months()
