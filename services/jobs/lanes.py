"""Lanes: the domain groups waiting for one mail domain, from every job of every account, in Redis.

A lane is what one worker drains over one warm SMTP session (``services.jobs.lane_runs``), so addresses
of many batches, single validations and bulk lists share connections instead of opening one each. Keys,
under the service's Redis prefix:

- ``lane:<domain>:q:<account>`` a list of refs ``<group id>:<addresses>``, oldest first;
- ``lane:<domain>:ring`` the accounts with refs waiting, in turn order: a round takes one ref per account
  in turn, so one account's million-address list never starves another's batch of 10;
- ``lane:<domain>:sent`` set while a drain message is on its way or a worker drains the lane, so a busy
  lane costs one broker message, not one per group;
- ``lane-owner`` lease set (``services.lease_sets``, one slot per lane): the worker draining it, renewed
  every round and lasting ``JOB_LEASE_SECONDS`` like a group's claim: a worker that dies holding a lane
  delays it by that long (then the sweeper's re-sent groups wake it), and a round that outlasts it may
  see a second worker drain the lane beside it (the claims keep every result single).

Postgres stays the record: a ref is only a hint (the claim in ``services.jobs.runs`` decides), so a ref
lost with Redis costs a delay (the sweeper re-sends groups left ``queued``), and a ref pushed twice costs
one failed claim.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.commands.core import Script

from services import lease_sets
from services.redis_client import get_redis, key
from settings import get_settings

OWNERS = "lane-owner"
LANE_TTL = 86_400  # a lane nobody drains for a day is dropped; its groups come back through the sweeper

# KEYS: ring, queue of the account. ARGV: account, ttl, refs...
_PUSH = """
for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[2], ARGV[2])
if not redis.call('LPOS', KEYS[1], ARGV[1]) then redis.call('RPUSH', KEYS[1], ARGV[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
# KEYS: ring. ARGV: queue key prefix, max addresses. Returns refs, one account's turn at a time.
_POP = """
local taken, total = {}, 0
while total < tonumber(ARGV[2]) do
  local account = redis.call('LPOP', KEYS[1])
  if not account then break end
  local queue = ARGV[1] .. account
  local ref = redis.call('LPOP', queue)
  if redis.call('LLEN', queue) > 0 then redis.call('RPUSH', KEYS[1], account) end
  if ref then
    table.insert(taken, ref)
    total = total + tonumber(string.match(ref, ':(%d+)$'))
  end
end
return taken
"""


@dataclass(frozen=True)
class LaneRef:
    """One domain group waiting in its lane."""

    group_id: int
    domain: str
    account_id: int
    addresses: int

    def encoded(self) -> str:
        return f"{self.group_id}:{self.addresses}"


def push(refs: list[LaneRef]) -> set[str]:
    """Queue ``refs`` in their lanes; the lanes that need a drain message (none on its way yet)."""
    by_lane: dict[tuple[str, int], list[str]] = {}
    for ref in refs:
        by_lane.setdefault((ref.domain, ref.account_id), []).append(ref.encoded())
    script = _script(_PUSH)
    for (domain, account), encoded in by_lane.items():
        script(keys=[_ring(domain), _queue(domain) + str(account)], args=[account, LANE_TTL, *encoded])
    domains = {domain for domain, _ in by_lane}
    return {domain for domain in domains if mark_sent(domain)}


def pop_round(domain: str, max_addresses: int) -> list[int]:
    """Group ids for one round of ``domain``: accounts in turn, up to ``max_addresses`` (one ref over)."""
    taken = _script(_POP)(keys=[_ring(domain)], args=[_queue(domain), max_addresses])
    return [int(str(ref).split(":", 1)[0]) for ref in taken]


def waiting(domain: str) -> bool:
    return bool(get_redis().exists(_ring(domain)))


def mark_sent(domain: str) -> bool:
    """True if no drain message was on its way (the caller sends one). The mark expires with a lane's
    lease (``JOB_LEASE_SECONDS``), so a worker that died draining blocks the lane no longer than it would
    hold one of its groups."""
    return bool(get_redis().set(_sent(domain), "1", nx=True, ex=get_settings().jobs.lease))


def clear_sent(domain: str) -> None:
    get_redis().delete(_sent(domain))


def take(domain: str) -> str | None:
    """The lane's lease if nobody drains it now; it lasts as long as a group's (``JOB_LEASE_SECONDS``)."""
    return lease_sets.try_acquire(OWNERS, domain, 1, get_settings().jobs.lease)


def keep(domain: str, token: str) -> bool:
    """Renew the lease before a round; False if it was lost (another worker may drain the lane now)."""
    return lease_sets.renew(OWNERS, domain, token, get_settings().jobs.lease)


def give_back(domain: str, token: str) -> None:
    lease_sets.release(OWNERS, domain, token)


def _ring(domain: str) -> str:
    return key("lane", domain, "ring")


def _queue(domain: str) -> str:
    return key("lane", domain, "q", "")


def _sent(domain: str) -> str:
    return key("lane", domain, "sent")


def _script(source: str) -> Script:
    return get_redis().register_script(source)
