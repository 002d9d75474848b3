"""What ``GET /api/usage`` reports (spec 4.6), gathered in one call: quota, rate windows, errors, plan.

Each part is read from its own record at one instant of the service clock: the quota from Postgres, the
rate windows from Redis (peeked, never counted: asking about usage is not usage), the error counts from
their buckets and the audit log. The parts are not one snapshot; a request finishing in between can show
in one part and not yet in another.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core import clock
from models.accounts import Account
from services.monitoring import forecast
from services.usage import charging, rate_limits, recent_errors, sandbox
from services.usage.plans import Plan, plan_for
from services.usage.quota import QuotaStatus
from services.usage.rate_limits import RateStatus
from services.usage.recent_errors import RecentErrors


@dataclass(frozen=True)
class UsageReport:
    at: datetime
    quota: QuotaStatus  # a ``SandboxQuota`` in test mode
    rate: RateStatus
    errors: RecentErrors
    plan: Plan
    livemode: bool
    monitoring: forecast.Forecast  # what the monitored lists will be charged before the quota resets


def usage_report(account: Account, livemode: bool = True) -> UsageReport:
    """The account's usage in the caller's mode as of now: live, the quota, the live rate-limit windows and
    live errors; test mode, its own validations (which spend none of the quota, ``sandbox``), windows and
    errors. Neither mode shows anything of the other."""
    quota = charging.current_status(account) if livemode else sandbox.status(account)
    return UsageReport(
        at=clock.now(),
        quota=quota,
        rate=rate_limits.peek(account, livemode),
        errors=recent_errors.recent(account.id, livemode),
        plan=plan_for(account.tier),
        livemode=livemode,
        monitoring=forecast.before(account.id, livemode, quota.period.end),
    )
