"""Reseller tasks: the beat sweeps that close ended months' commission reports and re-check custom domains.

Thin and idempotent: a month is closed at most once (unique per reseller and month, decided in Postgres by
``services.resellers.commissions``), so a duplicated or late tick closes nothing twice.
"""

from __future__ import annotations

from celery import shared_task

from services.resellers import commissions, domain_checks
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def close_commission_months() -> int:
    return commissions.close_ended_months()


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def recheck_custom_domains() -> int:
    return domain_checks.recheck_verified()


# A month closes 10 minutes after it ends; hourly ticks close it within the hour (a reseller asking for it
# earlier closes it on the spot).
# Verified custom domains are looked up hourly; one lapses after a day without its record.
BEAT = [Every(close_commission_months, 3600.0), Every(recheck_custom_domains, 3600.0)]
