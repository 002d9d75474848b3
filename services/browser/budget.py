"""A publishable key's own budget: how many validations web pages may have answered with it per UTC day and
per billing period (``ApiKey.publishable_daily_budget`` / ``_monthly_budget``, set by the owner).

A publishable key is public: the allowed origins stop other sites' pages in honest browsers, not a script
sending any ``Origin`` header. The budget is what bounds what anyone holding the key can spend, and it is
the key's alone: answers to it never count in the account's request windows (its servers' allowance),
and never run into billed overage (``services.usage.charging`` stops them at the quota).

Both counters are checked and counted by one Lua script, so concurrent answers never pass the budget; a
refused request counts in neither. Redis keeps nothing on disk: when a counter is missing (the key's first
answer of the day or period, or Redis restarted) the script says so and both are rebuilt from the charges
Postgres recorded for the key (``UsageCharge.publishable_key_id``) before counting. As with the rate limits,
that is a lower bound (an answer admitted but not charged yet is not in Postgres): a restart can forgive a
few, never invent any. Test keys are never charged, so their counters start again from zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, func, select

from core import clock
from models.session import transaction
from models.usage import UsageCharge
from services.auth import AuthContext
from services.browser.errors import BudgetExhausted
from services.redis_client import key, script
from services.usage.periods import Period, period_containing
from services.usage.rate_limits import Window, audit_refusal, binding

DAY = timedelta(days=1)
# Counters are named after their window; expiry only collects them (real seconds, with slack for a test
# clock far from Redis's own time). A billing period is at most 31 days.
DAY_TTL_SECONDS = 2 * 86_400
MONTH_TTL_SECONDS = 40 * 86_400

# KEYS: the day counter, the period counter, the "refused today" marker. ARGV: day budget, period budget,
# day ttl, period ttl, then optionally the day and period seeds. Returns {day used, period used, admitted,
# first refusal today}; a day of -1 asks for seeds.
_SPEND = """
if ARGV[5] then
  redis.call('SET', KEYS[1], ARGV[5], 'NX', 'EX', ARGV[3])
  redis.call('SET', KEYS[2], ARGV[6], 'NX', 'EX', ARGV[4])
end
local day = redis.call('GET', KEYS[1])
local month = redis.call('GET', KEYS[2])
if not day or not month then return {-1, -1, 0, 0} end
day, month = tonumber(day), tonumber(month)
if day >= tonumber(ARGV[1]) or month >= tonumber(ARGV[2]) then
  local first = redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3])
  return {day, month, 0, first and 1 or 0}
end
return {redis.call('INCR', KEYS[1]), redis.call('INCR', KEYS[2]), 1, 0}
"""
# KEYS: the day counter, the period counter: each taken back by one where it still exists.
_GIVE_BACK = """
for _, counter in ipairs(KEYS) do
  if redis.call('EXISTS', counter) == 1 then redis.call('DECR', counter) end
end
"""


@dataclass(frozen=True)
class BudgetStatus:
    """Both windows of the key's budget after a request was counted (or refused)."""

    day: Window
    month: Window
    admitted: bool
    first_refusal: bool = False

    @property
    def binding(self) -> Window:
        """The window the limit headers and a refusal describe."""
        return binding(self.day, self.month)

    @property
    def span(self) -> str:
        return "daily" if self.binding is self.day else "monthly"


def spend(auth: AuthContext) -> BudgetStatus:
    """Count one answer to the publishable key against its budget, or raise ``BudgetExhausted`` (nothing
    counted). The first refusal per key and UTC day is audited as a rate-limit violation."""
    now = clock.now()
    status = _counted(auth, now)
    if status.admitted:
        return status
    refused = BudgetExhausted(status.span, status.binding, now)
    if status.first_refusal:
        audit_refusal(auth, f"publishable {status.span} budget", refused.extra)
    raise refused


def give_back(auth: AuthContext) -> None:
    """Uncount the answer ``spend`` counted, for a request refused after it (the account's quota)."""
    now = clock.now()
    keys = _keys(auth, now, period_containing(auth.account.billing_anchor, now))[:2]
    script(_GIVE_BACK)(keys=keys, args=[])


def _counted(auth: AuthContext, now: datetime) -> BudgetStatus:
    """One run of the script, and a second with seeds when it asked for them."""
    period = period_containing(auth.account.billing_anchor, now)
    budget = auth.key.publishable_daily_budget, auth.key.publishable_monthly_budget
    keys, args = _keys(auth, now, period), [*budget, DAY_TTL_SECONDS, MONTH_TTL_SECONDS]
    day, month, admitted, first = script(_SPEND)(keys=keys, args=args)
    if int(day) < 0:
        seeds = _seeds(auth, now, period)
        day, month, admitted, first = script(_SPEND)(keys=keys, args=[*args, *seeds])
    return BudgetStatus(
        day=Window(budget[0], int(day), _day_start(now) + DAY),
        month=Window(budget[1], int(month), period.end),
        admitted=bool(admitted),
        first_refusal=bool(first),
    )


def _keys(auth: AuthContext, now: datetime, period: Period) -> list[str]:
    """The key's counters, a hash tag per key (one slot, should Redis ever be a cluster)."""
    tag, day = f"{{{auth.key_id}}}", int(_day_start(now).timestamp())
    month = int(period.start.timestamp())
    return [key("pkb", tag, "d", day), key("pkb", tag, "m", month), key("pkb", tag, "refused", day)]


def _seeds(auth: AuthContext, now: datetime, period: Period) -> tuple[int, int]:
    """The validations charged to the key today and this period (test keys: none are charged)."""
    if not auth.livemode:
        return 0, 0
    day_start = _day_start(now)
    stmt = select(_charged_since(day_start), _charged_since(period.start)).where(
        UsageCharge.publishable_key_id == auth.key_id,
        UsageCharge.charged_at >= min(day_start, period.start),
    )
    with transaction() as session:
        today, this_period = session.execute(stmt).one()
    return int(today), int(this_period)


def _charged_since(start: datetime) -> ColumnElement[int]:
    return func.coalesce(func.sum(UsageCharge.validations).filter(UsageCharge.charged_at >= start), 0)


def _day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)
