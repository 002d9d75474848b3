"""Fleet-wide counting semaphores in Redis: at most N leases per name, each expiring on its own.

A lease set is a sorted set of tokens scored by expiry (Redis ``TIME``, so worker clocks do not matter).
Acquiring drops expired leases and adds one if fewer than N remain, atomically in one script; releasing
removes the token. A holder that dies never releases: its slot frees itself when the lease expires, so a
crash costs one slot for one lease period, never for ever. Used for webhook deliveries in flight per
account. SMTP sessions per MX address are leases of the same shape, taken by the politeness script
(``services/probing/politeness.py``), which spaces sessions and backs off in the same round trip.
"""

from __future__ import annotations

import secrets

from services.redis_client import get_redis, key, script

# KEYS: the lease set. ARGV: slots, lease seconds, token. 1 when granted.
_ACQUIRE = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], t + tonumber(ARGV[2]), ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
  return 1
end
return 0
"""


def try_acquire(namespace: str, name: str, slots: int, lease_seconds: float) -> str | None:
    """A lease token if one of ``slots`` is free for ``name`` now, else None (never waits)."""
    token = secrets.token_hex(8)
    granted = script(_ACQUIRE)(keys=[_set(namespace, name)], args=[slots, lease_seconds, token])
    return token if granted else None


# KEYS: the lease set. ARGV: lease seconds, token. 1 when the token still held a lease (now extended).
_RENEW = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
return redis.call('ZADD', KEYS[1], 'XX', 'CH', t + tonumber(ARGV[1]), ARGV[2])
"""


def renew(namespace: str, name: str, token: str, lease_seconds: float) -> bool:
    """Extend a lease still held (False when it was lost: expired and dropped, or released)."""
    renewed = script(_RENEW)(keys=[_set(namespace, name)], args=[lease_seconds, token])
    return bool(renewed)


def release(namespace: str, name: str, token: str) -> None:
    get_redis().zrem(_set(namespace, name), token)


def held(namespace: str, name: str) -> int:
    """Leases currently held on ``name`` (expired ones included until the next acquire drops them)."""
    count: int = get_redis().zcard(_set(namespace, name))
    return count


def _set(namespace: str, name: str) -> str:
    return key(namespace, name.lower())
