"""Per egress, what operators see (``flask --app web egress status``, the operator's health answer):
sessions open and in total, RCPTs sent, blocks by MX address, until when it is out of use, its last error.

Keys, under the service's prefix, fleet-wide per egress id:

- ``egress-open:<egress>`` the sessions open over it, a lease set whose members are holds of their
  processes (a killed worker's sessions leave the count within ``HOLD_SECONDS``);
- ``egress-stats:<egress>`` a hash: ``sessions`` and ``rcpts`` counted since the counters were last lost
  (they live in Redis, like the rest of the fleet's state), ``lastError`` and ``lastErrorAt``;
- ``egress-blocks:<egress>`` a hash: blocks met per MX address (each block once, not per address asked).

Counters expire after ``KEEP_SECONDS`` of an egress's silence, so a removed egress leaves nothing behind.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from services import lease_sets
from services.probing.egress import blocks
from services.probing.upkeep.holds import HOLDS
from services.redis_client import get_redis, key, script

KEEP_SECONDS = 7 * 86_400
OPEN = "egress-open"
# KEYS: open sessions, stats. ARGV: lease seconds, member, keep seconds.
_OPENED = (
    lease_sets.LUA
    + """
add_lease(KEYS[1], ARGV[1], ARGV[2], redis_time())
redis.call('HINCRBY', KEYS[2], 'sessions', 1)
redis.call('EXPIRE', KEYS[2], ARGV[3])
"""
)
# KEYS: open sessions. The members whose hold has not run out.
_OPEN_NOW = (
    lease_sets.LUA
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', redis_time())
return redis.call('ZCARD', KEYS[1])
"""
)


@dataclass(frozen=True)
class Counters:
    sessions_open: int = 0
    sessions_total: int = 0
    rcpts: int = 0
    blocks: dict[str, int] = field(default_factory=dict)
    backoff_until: str | None = None  # ISO 8601 UTC: out of the pool, or tried last after a fault
    last_error: str | None = None


def opened(egress_id: str, token: str, lease_seconds: float) -> None:
    """A session over the egress opened (``token``: its politeness lease's)."""
    member = _member(token)
    args = [lease_seconds, member, KEEP_SECONDS]
    script(_OPENED)(keys=[lease_sets.set_key(OPEN, egress_id), key("egress-stats", egress_id)], args=args)
    HOLDS.keep_member(lease_sets.set_key(OPEN, egress_id), member)


def closed(egress_id: str, token: str, rcpts: int) -> None:
    """The session ended, after ``rcpts`` RCPTs over its life."""
    member = _member(token)
    HOLDS.drop_member(member)
    pipe = get_redis().pipeline(transaction=False)
    pipe.zrem(lease_sets.set_key(OPEN, egress_id), member)
    if rcpts:
        pipe.hincrby(key("egress-stats", egress_id), "rcpts", rcpts)
    pipe.execute()


def error(egress_id: str, text: str, mx_ip: str | None = None) -> None:
    """The egress's last error; with ``mx_ip``, a block met there (counted once per block)."""
    pipe = get_redis().pipeline(transaction=False)
    stats = key("egress-stats", egress_id)
    pipe.hset(stats, mapping={"lastError": text[:300], "lastErrorAt": _iso(time.time())})
    pipe.expire(stats, KEEP_SECONDS)
    if mx_ip is not None:
        pipe.hincrby(key("egress-blocks", egress_id), mx_ip, 1)
        pipe.expire(key("egress-blocks", egress_id), KEEP_SECONDS)
    pipe.execute()


def read(egress_ids: Sequence[str]) -> list[Counters]:
    """The counters of each egress, in order."""
    redis, ids = get_redis(), list(egress_ids)
    pipe = redis.pipeline(transaction=False)
    for egress_id in ids:
        pipe.hgetall(key("egress-stats", egress_id))
        pipe.hgetall(key("egress-blocks", egress_id))
    found = pipe.execute()
    out = blocks.unavailable(ids) if ids else []
    answers = []
    for index, egress_id in enumerate(ids):
        stats, seen = _text(found[2 * index]), _text(found[2 * index + 1])
        answers.append(
            Counters(
                sessions_open=int(script(_OPEN_NOW)(keys=[lease_sets.set_key(OPEN, egress_id)])),
                sessions_total=int(stats.get("sessions", 0)),
                rcpts=int(stats.get("rcpts", 0)),
                blocks={mx: int(count) for mx, count in sorted(seen.items())},
                backoff_until=_iso(time.time() + out[index]) if out[index] > 0 else None,
                last_error=stats.get("lastError"),
            )
        )
    return answers


def _member(token: str) -> str:
    return f"{token}:egress"  # the politeness slot's hold is the token itself


def _text(mapping: dict[bytes | str, bytes | str]) -> dict[str, str]:
    def text(value: bytes | str) -> str:
        return value.decode() if isinstance(value, bytes) else value

    return {text(name): text(value) for name, value in mapping.items()}


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
