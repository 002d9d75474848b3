"""The body of ``GET /api/usage`` (spec 4.6), field for field."""

from __future__ import annotations

from pydantic import Field

from services.usage.report import UsageReport
from web.schemas.base import Out, Timestamp

LIVEMODE = (
    "false under a test key: `quota.used` counts the period's test-mode validations, which spend none of the "
    "quota (`remaining` is the whole of it, `percentage` 0, never in grace: the sandbox never refuses), and "
    "`rateLimit` and `recentErrors` are test mode's own"
)


class PeriodOut(Out):
    start: Timestamp = Field(description="billing period start (the account's billing anchor)")
    end: Timestamp = Field(description="billing period end, when the quota resets")
    days_remaining: int = Field(description="whole days until the quota resets, rounded up")


class QuotaOut(Out):
    limit: int = Field(description="monthly quota of the plan")
    used: int
    remaining: int = Field(description="left within the quota; 0 in the grace period")
    percentage: float = Field(description="percent of the quota used, two decimals; up to 120")
    in_grace_period: bool = Field(description="true from 100% to 120% of the quota")
    hard_limit: int = Field(description="120% of the quota: the last validation that still runs")
    used_by_publishable_keys: int = Field(
        description="of `used`, the validations answered to publishable keys (web pages, POST "
        "/validate/browser): each key's own budget bounds them, they stop at `limit` (never overage) and "
        "are not in `rateLimit`, which counts the account's other requests"
    )


class RateLimitOut(Out):
    limit_per_minute: int
    limit_per_day: int
    used_this_minute: int
    used_today: int
    remaining_this_minute: int
    remaining_today: int
    minute_resets_at: Timestamp = Field(description="the next whole UTC minute")
    day_resets_at: Timestamp = Field(description="the next UTC midnight")


class RecentErrorsOut(Out):
    """Error answers of the last 24 hours; ``lastErrorAt`` is null when there were none."""

    unauthorized: int
    rate_limited: int
    bad_request: int
    server_error: int
    last_error_at: Timestamp | None


class PlanOut(Out):
    tier: str
    name: str
    features: list[str] = Field(description="the validation checks this plan runs")


class MonitoredListsOut(Out):
    """The monitored lists' runs still to come before the quota resets, each charged as a bulk list."""

    active: int = Field(description="monitored lists not paused")
    runs_before_reset: int
    validations_before_reset: int = Field(description="what those runs will count against the quota")


class UsageOut(Out):
    period: PeriodOut
    quota: QuotaOut
    rate_limit: RateLimitOut
    recent_errors: RecentErrorsOut
    plan: PlanOut
    monitored_lists: MonitoredListsOut
    livemode: bool = Field(description=LIVEMODE)

    @classmethod
    def of(cls, report: UsageReport) -> UsageOut:
        quota, rate, errors, plan = report.quota, report.rate, report.errors, report.plan
        return cls(
            period=PeriodOut(
                start=quota.period.start,
                end=quota.period.end,
                days_remaining=quota.period.days_remaining(report.at),
            ),
            quota=QuotaOut(
                limit=quota.limit,
                used=quota.used,
                remaining=quota.remaining,
                percentage=quota.percentage,
                in_grace_period=quota.in_grace_period,
                hard_limit=quota.hard_limit,
                used_by_publishable_keys=quota.publishable_used,
            ),
            rate_limit=RateLimitOut(
                limit_per_minute=rate.minute.limit,
                limit_per_day=rate.day.limit,
                used_this_minute=rate.minute.used,
                used_today=rate.day.used,
                remaining_this_minute=rate.minute.remaining,
                remaining_today=rate.day.remaining,
                minute_resets_at=rate.minute.resets_at,
                day_resets_at=rate.day.resets_at,
            ),
            recent_errors=RecentErrorsOut(
                unauthorized=errors.unauthorized,
                rate_limited=errors.rate_limited,
                bad_request=errors.bad_request,
                server_error=errors.server_error,
                last_error_at=errors.last_error_at,
            ),
            plan=PlanOut(tier=plan.tier.value, name=plan.name, features=[f.value for f in plan.features]),
            monitored_lists=MonitoredListsOut(
                active=report.monitoring.lists,
                runs_before_reset=report.monitoring.runs,
                validations_before_reset=report.monitoring.validations,
            ),
            livemode=report.livemode,
        )
