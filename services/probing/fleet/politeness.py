"""Politeness toward receiving servers, scheduled fleet-wide in Redis, per MX IP address: the rules of
``services.probing.fleet.policy`` carried out by Lua scripts, atomically for every worker.

Three rules, all checked in one script when a new SMTP session is wanted (a kept session reused by the
next group is not a new one and passes freely):

1. **Sessions at once**: at most ``SMTP_SESSIONS_PER_MX_HOST`` leases (a lease set of
   ``services.lease_sets``, whose Lua steps the script shares; a crashed worker's lease expires).
2. **Spacing**: a new session no sooner than ``SMTP_MIN_SESSION_INTERVAL_MS`` after the previous one to
   the same IP, whichever worker opened it; the script answers how long to wait, and the caller sleeps
   that long instead of polling blindly.
3. **Backoff**: a server that answered 421 (RFC 5321: closing the channel, how MTAs say "too many
   connections" or "slow down") or took longer than ``SMTP_SLOW_REPLY_SECONDS`` for a reply gets no new
   session for ``SMTP_BACKOFF_SECONDS``, doubling at each further complaint within the backoff memory up to
   ``SMTP_BACKOFF_MAX_SECONDS``; the level is forgotten after twice that time of quiet.

Times are Redis ``TIME``, so worker clocks do not matter. Trade-off: a group whose MX addresses are all in
backoff is not held for it (``services.probing.egress.limiter``): it ends at once unknown, reason
``backing_off``, ``retryAfter`` the backoff's end (asked again by ``retryTemporary`` or a later job),
which is what a prober that respects a server's request must accept.
"""

from __future__ import annotations

import secrets

from services import lease_sets
from services.probing.fleet.policy import Politeness, backoff_memory
from services.redis_client import get_redis, key, script

SLOTS = "smtp-slots"  # the lease sets of sessions, one per MX IP
# KEYS: leases, next-open, backoff. ARGV: slots, lease seconds, token, interval seconds.
# Returns 0 when granted, -1 when every slot is taken, else milliseconds worth waiting before asking again
# (``policy.admission``).
_ACQUIRE = (
    lease_sets.LUA
    + """
local t = redis_time()
local blocked = redis.call('PTTL', KEYS[3])
if blocked > 0 then return blocked end
if not has_room(KEYS[1], ARGV[1], t) then return -1 end
local after = tonumber(redis.call('GET', KEYS[2]) or '0')
if t < after then return math.max(1, math.ceil((after - t) * 1000)) end
add_lease(KEYS[1], ARGV[2], ARGV[3], t)
local interval = tonumber(ARGV[4])
if interval > 0 then
  redis.call('SET', KEYS[2], tostring(t + interval), 'PX', math.ceil(interval * 1000) + 1000)
end
return 0
"""
)
# KEYS: backoff, level. ARGV: base seconds, max seconds, seconds the level is remembered. Returns the
# backoff set, in milliseconds (``policy.backoff_seconds``).
_BACK_OFF = """
local level = redis.call('INCR', KEYS[2])
local ms = math.min(tonumber(ARGV[1]) * 2 ^ (level - 1), tonumber(ARGV[2])) * 1000
redis.call('PEXPIRE', KEYS[2], math.ceil(tonumber(ARGV[3]) * 1000))
redis.call('SET', KEYS[1], '1', 'PX', math.ceil(ms))
return math.ceil(ms)
"""


def try_open(ip: str, rules: Politeness) -> tuple[str | None, float]:
    """A lease token for a new session to ``ip`` now, or None and the seconds worth waiting (0: full)."""
    token = secrets.token_hex(8)
    keys = [lease_sets.set_key(SLOTS, ip), key("smtp-next", ip), key("smtp-backoff", ip)]
    answer = int(
        script(_ACQUIRE)(keys=keys, args=[rules.per_host, rules.lease_seconds, token, rules.interval_seconds])
    )
    if answer == 0:
        return token, 0.0
    return None, max(answer, 0) / 1000


def close(ip: str, token: str) -> None:
    lease_sets.release(SLOTS, ip, token)


def open_sessions(ip: str) -> int:
    return lease_sets.held(SLOTS, ip)


def back_off(ip: str, rules: Politeness) -> float:
    """Start (or double) the backoff of ``ip``; its length in seconds."""
    keys = [key("smtp-backoff", ip), key("smtp-backoff-level", ip)]
    args = [rules.backoff_seconds, rules.backoff_max_seconds, backoff_memory(rules)]
    ms = int(script(_BACK_OFF)(keys=keys, args=args))
    return ms / 1000


def backing_off(ip: str) -> float:
    """Seconds of backoff left on ``ip`` (0 when none)."""
    left = int(get_redis().pttl(key("smtp-backoff", ip)))
    return max(left, 0) / 1000
