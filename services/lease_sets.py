"""Fleet-wide counting semaphores in Redis: at most N leases per name, each expiring on its own.

A lease set is a sorted set of tokens scored by expiry (Redis ``TIME``, so worker clocks do not matter).
Acquiring drops expired leases and adds one if fewer than N remain, atomically in one script; releasing
removes the token. A holder that dies never releases: its slot frees itself when the lease expires, so a
crash costs one slot for one lease period, never for ever. Used for webhook deliveries in flight per
account, and for SMTP sessions per MX address, whose script (``services.probing.fleet.politeness``) adds its
spacing and backoff rules around the same Lua steps (``LUA``).
"""

from __future__ import annotations

import secrets

from services.redis_client import get_redis, key, script

# The steps of every script over a lease set, prepended to it: the time (Redis's own), whether a slot is
# free once expired leases are dropped, and a new lease expiring ``lease`` seconds from ``t``.
LUA = """
local function redis_time()
  local now = redis.call('TIME')
  return tonumber(now[1]) + tonumber(now[2]) / 1000000
end
local function has_room(set, slots, t)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', t)
  return redis.call('ZCARD', set) < tonumber(slots)
end
local function add_lease(set, lease, token, t)
  redis.call('ZADD', set, t + tonumber(lease), token)
  redis.call('EXPIRE', set, math.ceil(tonumber(lease)) + 1)
end
"""
# KEYS: the lease set. ARGV: slots, lease seconds, token. 1 when granted.
_ACQUIRE = (
    LUA
    + """
local t = redis_time()
if not has_room(KEYS[1], ARGV[1], t) then return 0 end
add_lease(KEYS[1], ARGV[2], ARGV[3], t)
return 1
"""
)
# KEYS: the lease set. ARGV: lease seconds, token. 1 when the token still held a lease (now extended).
_RENEW = (
    LUA
    + """
return redis.call('ZADD', KEYS[1], 'XX', 'CH', redis_time() + tonumber(ARGV[1]), ARGV[2])
"""
)


def try_acquire(namespace: str, name: str, slots: int, lease_seconds: float) -> str | None:
    """A lease token if one of ``slots`` is free for ``name`` now, else None (never waits)."""
    token = secrets.token_hex(8)
    granted = script(_ACQUIRE)(keys=[set_key(namespace, name)], args=[slots, lease_seconds, token])
    return token if granted else None


def renew(namespace: str, name: str, token: str, lease_seconds: float) -> bool:
    """Extend a lease still held (False when it was lost: expired and dropped, or released)."""
    renewed = script(_RENEW)(keys=[set_key(namespace, name)], args=[lease_seconds, token])
    return bool(renewed)


def release(namespace: str, name: str, token: str) -> None:
    get_redis().zrem(set_key(namespace, name), token)


def held(namespace: str, name: str) -> int:
    """Leases currently held on ``name`` (expired ones included until the next acquire drops them)."""
    count: int = get_redis().zcard(set_key(namespace, name))
    return count


def set_key(namespace: str, name: str) -> str:
    """The lease set of ``name`` (a script's KEYS entry)."""
    return key(namespace, name.lower())
