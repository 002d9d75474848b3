"""Per-account request rate limits (spec 8.1): a per-minute and a per-day window in Redis.

Windows are fixed and aligned to UTC: the minute window turns over at each whole minute, the day window
at UTC midnight, so ``minuteResetsAt``/``dayResetsAt`` and ``X-RateLimit-Reset`` are exact instants a
client can wait for. The trade-off accepted: a client can spend a full minute's allowance in the last
second of one window and again in the first second of the next (twice the rate for a moment), in
exchange for counts that are exact, cheap and explainable.

Both windows are checked and counted by one Lua script, which Redis runs atomically: with 50 concurrent
requests against 10/minute exactly 10 pass, with no check-then-increment race. A refused request counts
against neither window. Redis keeps nothing on disk here; when the day counter is missing (first request
of the day, or Redis restarted) the script says so and the counters are rebuilt from the requests
Postgres recorded (``services.usage.charging.requests_since``) before counting. That rebuild is a lower
bound - admitted requests that were not charged (rejected afterwards by the quota) are not in Postgres - so a
restart can forgive a few requests, never invent any.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from redis.exceptions import NoScriptError

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from services import audit
from services.auth import AuthContext
from services.redis_client import key, registered, run_on_own_connection, script
from services.usage import charging
from services.usage.errors import RateLimited
from services.usage.plans import plan_for

MINUTE = timedelta(minutes=1)
DAY = timedelta(days=1)
# Keys are named after their window, so expiry is only garbage collection: real seconds, with slack,
# because a test clock may be frozen far from Redis's own time.
MINUTE_TTL_SECONDS = 120
DAY_TTL_SECONDS = 2 * 86_400

# KEYS: minute counter, day counter, "refused this minute" marker. ARGV: minute limit, day limit,
# minute ttl, day ttl, mode ("count" or "peek"), then optionally the minute and day seeds from Postgres.
# Returns {minute used, day used, admitted, first refusal this minute}; {-1, -1, 0, 0} asks for seeds.
_SCRIPT = """
if ARGV[6] then
  redis.call('SET', KEYS[1], ARGV[6], 'NX', 'EX', ARGV[3])
  redis.call('SET', KEYS[2], ARGV[7], 'NX', 'EX', ARGV[4])
end
local day = redis.call('GET', KEYS[2])
if not day then return {-1, -1, 0, 0} end
day = tonumber(day)
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[5] == 'peek' then return {minute, day, 0, 0} end
if minute >= tonumber(ARGV[1]) or day >= tonumber(ARGV[2]) then
  local first = redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3])
  return {minute, day, 0, first and 1 or 0}
end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
day = redis.call('INCR', KEYS[2])
return {minute, day, 1, 0}
"""


@dataclass(frozen=True)
class Window:
    """One rate-limit window as a client sees it."""

    limit: int
    used: int
    resets_at: datetime

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)


@dataclass(frozen=True)
class RateStatus:
    """Both windows after a check; ``admitted`` is False when this request was refused (or only peeked)."""

    minute: Window
    day: Window
    admitted: bool
    first_refusal: bool = False  # the first refused request of this account in this minute

    @property
    def binding(self) -> Window:
        """The window the headers and a 429 describe: of the exhausted ones, the one that frees up last
        (waiting out the minute is useless when the day is spent too); otherwise the one closest to
        exhaustion, the minute on a tie.
        """
        exhausted = [window for window in (self.minute, self.day) if window.remaining == 0]
        if exhausted:
            return max(exhausted, key=lambda window: window.resets_at)
        return self.day if self.day.remaining < self.minute.remaining else self.minute


def admit_request(auth: AuthContext) -> RateStatus:
    """Count one request (a whole batch is one) against both windows, or raise ``RateLimited``.

    Call once per HTTP request that validates, after authorization and before any work; a refused request
    is not counted. The first refusal per account and minute is audited; the rest of a flood is not, so a
    client hammering at 429s cannot turn the audit log into a write amplifier.
    """
    status = _run(auth.account, "count")
    if status.admitted:
        return status
    refused = RateLimited(status, clock.now())
    if status.first_refusal:
        audit.record(
            AuditEvent.RATE_LIMITED,
            account_id=auth.account.id,
            key_id=auth.key.id,
            origin=auth.origin,
            details={"window": refused.span, **refused.extra},
        )
    raise refused


def peek(account: Account) -> RateStatus:
    """Both windows without counting: for the headers of other responses and for ``GET /api/usage``."""
    return _run(account, "peek")


def _run(account: Account, mode: str) -> RateStatus:
    now = clock.now()
    minute_start, day_start = _floor(now, MINUTE), _floor(now, DAY)
    keys = [_key(account.id, "m", minute_start), _key(account.id, "d", day_start)]
    keys.append(_key(account.id, "refused", minute_start))
    plan = plan_for(account.tier)
    args: list[str | int] = [plan.requests_per_minute, plan.requests_per_day]
    args += [MINUTE_TTL_SECONDS, DAY_TTL_SECONDS, mode]
    minute_used, day_used, admitted, first_refusal = _evaluate(keys, args)
    if day_used < 0:
        args += list(charging.requests_since(account.id, minute_start, day_start))
        minute_used, day_used, admitted, first_refusal = _evaluate(keys, args)
    return RateStatus(
        minute=Window(plan.requests_per_minute, minute_used, minute_start + MINUTE),
        day=Window(plan.requests_per_day, day_used, day_start + DAY),
        admitted=bool(admitted),
        first_refusal=bool(first_refusal),
    )


def _floor(instant: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return epoch + step * ((instant - epoch) // step)


def _key(account_id: int, window: str, start: datetime) -> str:
    """The account id is a hash tag, so one script's keys share a slot should Redis ever be a cluster."""
    return key("rl", f"{{{account_id}}}", window, int(start.timestamp()))


def _evaluate(keys: list[str], args: list[str | int]) -> list[int]:
    """EVALSHA itself on every request, on the thread's own connection (``run_on_own_connection``; redis-py's
    ``Script.__call__`` first checks whether its client is a pipeline, a typing-protocol ``isinstance``
    that cost a fifth of the call); the script object reloads the script after a Redis restart emptied
    its cache."""
    try:
        sha = registered(_SCRIPT).sha
        return run_on_own_connection("EVALSHA", sha, len(keys), *keys, *args)  # type: ignore[no-any-return]
    except NoScriptError:
        return script(_SCRIPT)(keys=keys, args=args)  # type: ignore[no-any-return]
