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
from typing import TypeVar

from redis.exceptions import NoScriptError, RedisError

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from services import audit, snapshots
from services import auth as auth_service
from services.auth import Actor, AuthContext
from services.networks import client_network
from services.redis_client import key, registered, run_on_own_connection, script
from services.usage import charging
from services.usage.errors import RateLimited
from services.usage.plans import plan_for
from settings import get_settings

A = TypeVar("A", bound=Actor)
MINUTE = timedelta(minutes=1)
DAY = timedelta(days=1)
# Keys are named after their window, so expiry is only garbage collection: real seconds, with slack,
# because a test clock may be frozen far from Redis's own time.
MINUTE_TTL_SECONDS = 120
DAY_TTL_SECONDS = 2 * 86_400

# KEYS: minute counter, day counter, "refused this minute" marker, the key-snapshot generation. ARGV: minute
# limit, day limit, minute ttl, day ttl, mode ("count" or "peek"), the generation the caller's key snapshot
# was read under ("" when it was read for this request), then optionally the minute and day seeds.
# Returns {minute used, day used, admitted, first refusal this minute, generation, stale}; a day of -1 asks
# for seeds; stale = 1 when the caller's snapshot is older than the generation (nothing was counted).
_SCRIPT = """
local generation = redis.call('GET', KEYS[4]) or '0'
if ARGV[7] then
  redis.call('SET', KEYS[1], ARGV[7], 'NX', 'EX', ARGV[3])
  redis.call('SET', KEYS[2], ARGV[8], 'NX', 'EX', ARGV[4])
end
local day = redis.call('GET', KEYS[2])
if not day then return {-1, -1, 0, 0, generation, 0} end
day = tonumber(day)
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[5] == 'peek' then return {minute, day, 0, 0, generation, 0} end
if ARGV[6] ~= '' and ARGV[6] ~= generation then return {minute, day, 0, 0, generation, 1} end
if minute >= tonumber(ARGV[1]) or day >= tonumber(ARGV[2]) then
  local first = redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3])
  return {minute, day, 0, first and 1 or 0, generation, 0}
end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
day = redis.call('INCR', KEYS[2])
return {minute, day, 1, 0, generation, 0}
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
    generation: str | None = None  # the key-snapshot generation Redis holds (``services.snapshots``)
    stale: bool = False  # the caller's key snapshot was older than ``generation``: nothing was counted

    @property
    def binding(self) -> Window:
        """The window the headers and a 429 describe (``binding``), the minute on a tie."""
        return binding(self.minute, self.day)


def binding(*windows: Window) -> Window:
    """Of the exhausted windows, the one that frees up last (waiting out the minute is useless when the day
    is spent too); otherwise the one closest to exhaustion, the first on a tie."""
    exhausted = [window for window in windows if window.remaining == 0]
    if exhausted:
        return max(exhausted, key=lambda window: window.resets_at)
    return min(windows, key=lambda window: window.remaining)


def admit_request(actor: A) -> tuple[A, RateStatus]:
    """Count one request (a whole batch is one) against both windows, or raise ``RateLimited``; the caller
    as confirmed by the same round trip (``services.auth.confirm``: a key revoked since its snapshot was
    read is refused here, before anything is counted).

    Call once per HTTP request that validates, after authorization and before any work; a refused request
    is not counted. The first refusal per account and minute is audited; the rest of a flood is not, so a
    client hammering at 429s cannot turn the audit log into a write amplifier.
    """
    status = _run(actor.account, "count", actor.generation, actor.livemode)
    if status.stale:
        actor = actor.confirmed(status.generation)
        status = _run(actor.account, "count", None, actor.livemode)
    if status.admitted:
        return actor, status
    refused = RateLimited(status, clock.now())
    if status.first_refusal:
        audit_refusal(actor, refused.span, refused.extra)
    raise refused


def audit_refusal(actor: Actor, window: str, extra: dict[str, object]) -> None:
    """Audit a refusal as a rate-limit violation; callers audit only the first of a window, so a client
    hammering at 429s cannot turn the audit log into a write amplifier."""
    audit.record(
        AuditEvent.RATE_LIMITED,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"window": window, **extra},
        livemode=actor.livemode,
    )


def peek(account: Account, livemode: bool = True) -> RateStatus:
    """Both windows without counting: for ``GET /api/usage`` and the headers of other responses."""
    return _run(account, "peek", None, livemode)


def peek_confirmed(auth: AuthContext) -> tuple[AuthContext, RateStatus | None]:
    """Both windows without counting, and the caller confirmed by the same round trip (for requests that
    are not counted); Redis unreachable: the key is read again from Postgres and no windows are known."""
    try:
        status = peek(auth.account, auth.livemode)
    except RedisError:
        snapshots.observe(None)
        return auth_service.confirm(auth, None), None
    return auth_service.confirm(auth, status.generation), status


def admit_anonymous(ip: str | None) -> RateStatus:
    """Count one request that carries no valid key against its client's windows (``ANONYMOUS_REQUESTS_*``,
    an IPv6 client by its /64), or raise ``RateLimited``: a guesser of keys is slowed down, and every
    answer to it carries limit headers."""
    status = _run_anonymous(ip, "count")
    if not status.admitted:
        raise RateLimited(status, clock.now())
    return status


def peek_anonymous(ip: str | None) -> RateStatus:
    """The windows of a client without a key, without counting (public routes)."""
    return _run_anonymous(ip, "peek")


def _run_anonymous(ip: str | None, mode: str) -> RateStatus:
    settings = get_settings()
    tag = f"{{ip:{client_network(ip)}}}"
    return _windows(tag, settings.anonymous_per_minute, settings.anonymous_per_day, mode, None, seeds=(0, 0))


def _run(account: Account, mode: str, generation: str | None, livemode: bool = True) -> RateStatus:
    """The account's windows; test mode has windows of its own, as large, so a client can meet a 429 in
    the sandbox without spending its live allowance (and has no charges to seed them from)."""
    plan = plan_for(account.tier)
    tag = f"{{{account.id}}}" if livemode else f"{{{account.id}:test}}"
    status = _windows(tag, plan.requests_per_minute, plan.requests_per_day, mode, generation)
    if status.day.used >= 0:
        return status
    if not livemode:
        return _windows(tag, plan.requests_per_minute, plan.requests_per_day, mode, generation, seeds=(0, 0))
    seeds = charging.requests_since(account.id, status.minute.resets_at - MINUTE, status.day.resets_at - DAY)
    return _windows(tag, plan.requests_per_minute, plan.requests_per_day, mode, generation, seeds=seeds)


def _windows(
    tag: str,
    per_minute: int,
    per_day: int,
    mode: str,
    generation: str | None,
    *,
    seeds: tuple[int, int] | None = None,
) -> RateStatus:
    """One run of the script for the windows of ``tag`` (an account id, or a client's network)."""
    now = clock.now()
    minute_start, day_start = _floor(now, MINUTE), _floor(now, DAY)
    keys = [_key(tag, "m", minute_start), _key(tag, "d", day_start), _key(tag, "refused", minute_start)]
    keys.append(snapshots.generation_key())
    args: list[str | int] = [per_minute, per_day, MINUTE_TTL_SECONDS, DAY_TTL_SECONDS, mode, generation or ""]
    minute_used, day_used, admitted, first_refusal, current, stale = _evaluate(keys, [*args, *(seeds or ())])
    snapshots.observe(str(current))
    return RateStatus(
        minute=Window(per_minute, int(minute_used), minute_start + MINUTE),
        day=Window(per_day, int(day_used), day_start + DAY),
        admitted=bool(admitted),
        first_refusal=bool(first_refusal),
        generation=str(current),
        stale=bool(stale),
    )


def _floor(instant: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    return epoch + step * ((instant - epoch) // step)


def _key(tag: str, window: str, start: datetime) -> str:
    """``tag`` is a hash tag, so one script's keys share a slot should Redis ever be a cluster."""
    return key("rl", tag, window, int(start.timestamp()))


def _evaluate(keys: list[str], args: list[str | int]) -> list[int | str]:
    """EVALSHA itself on every request, on the thread's own connection (``run_on_own_connection``; redis-py's
    ``Script.__call__`` first checks whether its client is a pipeline, a typing-protocol ``isinstance``
    that cost a fifth of the call); the script object reloads the script after a Redis restart emptied
    its cache."""
    try:
        sha = registered(_SCRIPT).sha
        return run_on_own_connection("EVALSHA", sha, len(keys), *keys, *args)  # type: ignore[no-any-return]
    except NoScriptError:
        return script(_SCRIPT)(keys=keys, args=args)  # type: ignore[no-any-return]
