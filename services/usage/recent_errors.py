"""Counting an account's error answers for ``recentErrors`` of ``GET /api/usage`` (spec 4.6).

400, 429 and 5xx answers to an authenticated caller are counted in Redis, in ten-minute buckets that
expire after a day: a client stuck in a retry loop can produce thousands of 429s a minute, and each one
must cost a hash increment, not a Postgres row. The window is therefore "the last 24 hours" to within
one bucket, and a Redis restart forgets the counts (they are diagnostics, not billing).

401s cannot be counted that way: a request that failed authentication has no account on it. The ones
that do belong to an account - a revoked or deactivated key of that account - are in the audit log as
``auth.failed`` with the account id, and are counted from there. A key that matches nothing names no
account, so it appears in nobody's usage.

Each mode counts apart: a test key's errors (its own buckets, its mode's ``auth.failed`` entries) are what a
test key reads, and a live key never sees them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select

from core import clock
from core.times import EPOCH
from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from services.redis_client import get_redis, key, script

BUCKET = timedelta(minutes=10)
WINDOW = timedelta(hours=24)
BUCKET_TTL_SECONDS = int((WINDOW + BUCKET).total_seconds())
# KEYS: the bucket. ARGV: field, time (epoch ms), ttl. Keeps "last" the latest time even when two
# requests finish out of order.
_RECORD = """
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if tonumber(redis.call('HGET', KEYS[1], 'last') or '0') < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'last', ARGV[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
"""


@dataclass(frozen=True)
class RecentErrors:
    unauthorized: int
    rate_limited: int
    bad_request: int
    server_error: int
    last_error_at: datetime | None


def field_for(status: int) -> str | None:
    """The counter an answer belongs to; None for answers ``recentErrors`` does not report."""
    if status >= 500:
        return "serverError"
    return {400: "badRequest", 429: "rateLimited"}.get(status)


def record(account_id: int, status: int, livemode: bool = True) -> None:
    """Count one error answer sent to ``account_id`` in ``livemode``'s mode (no-op for statuses that are not
    reported)."""
    field = field_for(status)
    if field is None:
        return
    now = clock.now()
    millis = int((now - EPOCH).total_seconds() * 1000)
    bucket = _bucket_key(account_id, _index(now), livemode)
    script(_RECORD)(keys=[bucket], args=[field, millis, BUCKET_TTL_SECONDS])


def recent(account_id: int, livemode: bool = True) -> RecentErrors:
    """The counts of ``livemode``'s mode in the last 24 hours (to within one bucket) and the time of its
    latest error."""
    now = clock.now()
    pipe = get_redis().pipeline(transaction=False)
    for index in range(_index(now - WINDOW), _index(now) + 1):
        pipe.hgetall(_bucket_key(account_id, index, livemode))
    totals = _combine(pipe.execute())
    unauthorized, last_401 = _unauthorized_since(account_id, now - WINDOW, livemode)
    last = EPOCH + timedelta(milliseconds=totals["last"]) if "last" in totals else None
    return RecentErrors(
        unauthorized=unauthorized,
        rate_limited=totals.get("rateLimited", 0),
        bad_request=totals.get("badRequest", 0),
        server_error=totals.get("serverError", 0),
        last_error_at=max((moment for moment in (last, last_401) if moment is not None), default=None),
    )


def _combine(buckets: list[dict[str, str]]) -> dict[str, int]:
    """Counters add up across buckets; ``last`` is the latest of them."""
    totals: dict[str, int] = {}
    for bucket in buckets:
        for name, value in bucket.items():
            merge = max if name == "last" else int.__add__
            totals[name] = merge(totals[name], int(value)) if name in totals else int(value)
    return totals


def _unauthorized_since(account_id: int, since: datetime, livemode: bool) -> tuple[int, datetime | None]:
    stmt = select(func.count(), func.max(AuditEntry.occurred_at)).where(
        AuditEntry.account_id == account_id,
        AuditEntry.livemode == livemode,
        AuditEntry.event == AuditEvent.AUTH_FAILED.value,
        AuditEntry.occurred_at >= since,
    )
    with transaction() as session:
        count, last = session.execute(stmt).one()
    return int(count), last


def _index(moment: datetime) -> int:
    return (moment - EPOCH) // BUCKET


def _bucket_key(account_id: int, index: int, livemode: bool) -> str:
    return key("errors" if livemode else "errors-test", account_id, index)
