"""Blocks and faults of egresses, in Redis, fleet-wide: a (egress, MX address) pair a server refused, an
egress refused by many MX addresses (out of the pool for a while), an egress whose way out failed.

Keys, under the service's prefix (``<place>`` is ``policy.place``):

- ``egress-blocked:<place>`` the reply that blocked the pair, expiring when the block ends
  (``policy.block_seconds``, doubling at each block within ``egress-blocked-level:<place>``'s memory);
  the pair's politeness backoff is set as long, so no session opens over it meanwhile;
- ``egress-blocked-by:<egress>`` the MX addresses blocking the egress now, scored by the block's end;
  at ``policy.OUT_OF_POOL_MX`` of them ``egress-out:<egress>`` takes it out of the pool;
- ``egress-fault:<egress>`` its last fault, for ``policy.FAULT_SECONDS`` (tried last meanwhile);
- ``mx-answered:<mx address>`` which egresses it answered lately: a refused connection is a block only
  when the server answers another egress;
- ``egress-block-shown:<place>`` while a block is logged and its end not yet: a block and its end are
  each logged once, whatever the number of sessions or addresses that met them.
"""

from __future__ import annotations

import logging

from services.lease_sets import LUA
from services.probing.fleet import policy
from services.redis_client import get_redis, key, script

log = logging.getLogger(__name__)
ANSWERED_SECONDS = 600  # a server that answered another egress this recently is up
# KEYS: blocked, level, backoff, blocked-by, out, shown. ARGV: base, max, memory, reply, mx address,
# out-of-pool count, out-of-pool seconds. Returns {ms of the block, 1 if newly blocked, 1 if now out}.
_BLOCK = (
    LUA
    + """
local left = redis.call('PTTL', KEYS[1])
if left > 0 then return {left, 0, 0} end
local t = redis_time()
local level = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], math.ceil(tonumber(ARGV[3]) * 1000))
local ms = math.ceil(math.min(tonumber(ARGV[1]) * 2 ^ (level - 1), tonumber(ARGV[2])) * 1000)
redis.call('SET', KEYS[1], ARGV[4], 'PX', ms)
if redis.call('PTTL', KEYS[3]) < ms then redis.call('SET', KEYS[3], '1', 'PX', ms) end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', t)
redis.call('ZADD', KEYS[4], t + ms / 1000, ARGV[5])
redis.call('EXPIRE', KEYS[4], math.ceil(tonumber(ARGV[2])) + 1)
redis.call('SET', KEYS[6], '1', 'PX', ms + 60000)
local out = 0
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then
  if redis.call('SET', KEYS[5], '1', 'EX', ARGV[7], 'NX') then out = 1 end
end
return {ms, 1, out}
"""
)


def block(egress_id: str, mx_ip: str, reply: str) -> tuple[float, bool]:
    """Mark the pair blocked (``reply``: what the server said); seconds until it may be asked again, and
    whether it was not blocked already (the block is new: logged and counted once)."""
    where = policy.place(egress_id, mx_ip)
    keys = [
        key("egress-blocked", where),
        key("egress-blocked-level", where),
        key("smtp-backoff", where),
        key("egress-blocked-by", egress_id),
        key("egress-out", egress_id),
        key("egress-block-shown", where),
    ]
    args = [policy.BLOCK_SECONDS, policy.BLOCK_MAX_SECONDS, 2 * policy.BLOCK_MAX_SECONDS, reply[:300], mx_ip]
    args += [policy.OUT_OF_POOL_MX, int(policy.OUT_OF_POOL_SECONDS)]
    ms, new, out = (int(value) for value in script(_BLOCK)(keys=keys, args=args))
    if new:
        log.warning("egress %s blocked by %s for %.0f s: %s", egress_id, mx_ip, ms / 1000, reply[:200])
    if out:
        log.warning(
            "egress %s out of the pool for %.0f s: blocked by many MX addresses",
            egress_id,
            policy.OUT_OF_POOL_SECONDS,
        )
    return ms / 1000, bool(new)


def answered(egress_id: str, mx_ip: str) -> None:
    """The server answered this egress: it is up, and the pair's block (if one was logged) has ended."""
    pipe = get_redis().pipeline(transaction=False)
    pipe.hset(key("mx-answered", mx_ip), egress_id, "1")
    pipe.expire(key("mx-answered", mx_ip), ANSWERED_SECONDS)
    pipe.delete(key("egress-block-shown", policy.place(egress_id, mx_ip)))
    if pipe.execute()[2]:
        log.info("egress %s no longer blocked by %s", egress_id, mx_ip)


def answers_others(egress_id: str, mx_ip: str) -> bool:
    """Did the server answer another egress lately (so a refused connection is about this one)?"""
    others: list[bytes | str] = get_redis().hkeys(key("mx-answered", mx_ip))
    return any((item.decode() if isinstance(item, bytes) else item) != egress_id for item in others)


def fault(egress_id: str, error: str) -> None:
    """The egress's way out failed (a proxy's fault): tried last for a while, its error shown."""
    get_redis().set(key("egress-fault", egress_id), error[:300], ex=int(policy.FAULT_SECONDS))
    log.warning("egress %s failed: %s", egress_id, error[:200])


def blocked_for(egress_id: str, mx_ip: str) -> float:
    """Seconds left of the pair's block (0: none)."""
    return max(int(get_redis().pttl(key("egress-blocked", policy.place(egress_id, mx_ip)))), 0) / 1000


def unavailable(egress_ids: list[str]) -> list[float]:
    """Per egress, seconds it is out of the pool or tried last after a fault (0: neither)."""
    pipe = get_redis().pipeline(transaction=False)
    for egress_id in egress_ids:
        pipe.pttl(key("egress-out", egress_id))
        pipe.pttl(key("egress-fault", egress_id))
    answers = [max(int(ms), 0) / 1000 for ms in pipe.execute()]
    return [max(answers[2 * index], answers[2 * index + 1]) for index in range(len(egress_ids))]
