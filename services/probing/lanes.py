"""Lanes: the domain groups waiting for one mail server, from every job of every account, in Redis.

A lane is what one worker drains over one warm SMTP session (``services.probing.lane_runs``), so addresses
of many batches, single validations and bulk lists, of every domain behind the same MX address, share
connections instead of opening one each. A lane is named for the MX address its groups' domains resolve to
(``mx/<ip>/<n>``, one of the address's ``SMTP_SESSIONS_PER_MX_HOST`` lanes), or for the domain itself
when it has none (``services.probing.routes``). Keys, under the service's Redis prefix:

- ``lane:<lane>:q:<account>`` a list of refs ``<group id>:<addresses>``, oldest first;
- ``lane:<lane>:turns`` the accounts with refs waiting, in turn order: a round takes one ref per account
  in turn, so one account's million-address list never starves another's batch of 10;
- ``lane:<lane>:owner`` ``sent`` while a drain message is on its way (for ``SENT_SECONDS``: a message
  lost after that is sent again by the sweeper), else the token of the worker draining the lane, a hold
  its process renews (``services.probing.holds``): a worker that dies owning a lane frees it within
  ``HOLD_SECONDS``. A busy lane costs one broker message per turn, not one per group;
- ``lane:<lane>:wakeup`` a wake-up pushed by a push while a worker owns the lane: the owner waits on it
  (a blocking pop) between rounds instead of polling, so groups of batches in flight join the lane's warm
  session.

Every key expires (``LANE_TTL``, the hold, a minute for wake-ups): a lane nobody drains any more, or a
key name no code reads any more, leaves nothing behind for good.

One push (``push``) queues every ref of a job in one script call, whatever the number of lanes.

Postgres stays the record: a ref is only a hint (the claim in ``services.jobs.store`` decides), so a ref
lost with Redis costs a delay (the sweeper pushes again, at once, the ``queued`` groups missing from their
lane: ``revive``), and a ref pushed twice costs one failed claim. Refs popped for a claim that failed go
back to the head of their queue (``put_back``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from services.probing.holds import HOLD_SECONDS
from services.redis_client import get_redis, key, script
from settings import BLOCKING_SLICE, get_settings

LANE_TTL = 86_400  # a lane nobody drains for a day is dropped; its groups come back through the sweeper
# A drain message is taken by a worker within milliseconds unless the probes queue is backed up; one
# still not taken after this long may be lost (a Redis restarted empty, a worker killed holding it), so
# the sweeper may send another: a duplicate finds the lane owned and costs one empty task.
SENT_SECONDS = 30

# KEYS: none (one script for many lanes). ARGV: key prefix, ttl, sent, "missing" (1: push only refs not
# already queued), then per lane: lane, account, number of refs, refs... Returns the lanes that need a
# drain message (nobody owns them, none sent).
_PUSH = """
local prefix, ttl, sent, missing, i, woken = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1', 5, {}
while i <= #ARGV do
  local lane = prefix .. 'lane:' .. ARGV[i] .. ':'
  local account, n = ARGV[i + 1], tonumber(ARGV[i + 2])
  local queue = lane .. 'q:' .. account
  for j = i + 3, i + 2 + n do
    if not (missing and redis.call('LPOS', queue, ARGV[j])) then redis.call('RPUSH', queue, ARGV[j]) end
  end
  if redis.call('EXISTS', queue) == 1 then
    redis.call('EXPIRE', queue, ttl)
    if not redis.call('LPOS', lane .. 'turns', account) then redis.call('RPUSH', lane .. 'turns', account) end
    redis.call('EXPIRE', lane .. 'turns', ttl)
  end
  local owner = redis.call('GET', lane .. 'owner')
  if not owner then
    redis.call('SET', lane .. 'owner', 'sent', 'EX', sent)
    table.insert(woken, ARGV[i])
  elseif owner ~= 'sent' then
    redis.call('RPUSH', lane .. 'wakeup', '1')
    redis.call('EXPIRE', lane .. 'wakeup', 60)
  end
  i = i + 3 + n
end
return woken
"""
# KEYS: turns. ARGV: queue key prefix, max addresses. Returns account, ref, account, ref...: one account's
# turn at a time: the account goes to the back of the turns (a rotation, so the key keeps its expiry), or
# leaves them once its queue is empty.
_POP = """
local taken, total = {}, 0
while total < tonumber(ARGV[2]) do
  local account = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
  if not account then break end
  local queue = ARGV[1] .. account
  local ref = redis.call('LPOP', queue)
  if redis.call('LLEN', queue) == 0 then redis.call('RPOP', KEYS[1]) end
  if ref then
    table.insert(taken, account)
    table.insert(taken, ref)
    total = total + tonumber(string.match(ref, ':(%d+)$'))
  end
end
return taken
"""
# KEYS: turns. ARGV: queue key prefix, ttl, then account, ref... as popped. Puts them back at the heads,
# their accounts first in turn.
_PUT_BACK = """
for i = #ARGV - 1, 3, -2 do
  local account, queue = ARGV[i], ARGV[1] .. ARGV[i]
  redis.call('LPUSH', queue, ARGV[i + 1])
  redis.call('EXPIRE', queue, ARGV[2])
  redis.call('LREM', KEYS[1], 0, account)
  redis.call('LPUSH', KEYS[1], account)
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
# KEYS: owner, wakeup. ARGV: token, hold seconds. 1 when the lane is now ours (nobody else drains it).
_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= 'sent' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""
# KEYS: owner, turns. ARGV: token, sent seconds. 1 when refs still wait and a drain message must be sent: the
# check and the hand-over are one step, so a push landing while we let go is never left without a drain.
_LET_GO = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[1], 'sent', 'EX', ARGV[2])
  return 1
end
redis.call('DEL', KEYS[1])
return 0
"""
# KEYS: owner. Drops the "sent" mark of a drain message that could not be sent, so the next push retries.
_NOT_SENT = """
if redis.call('GET', KEYS[1]) == 'sent' then redis.call('DEL', KEYS[1]) end
return 1
"""


@dataclass(frozen=True)
class LaneRef:
    """One domain group waiting in its lane (``routes.lane_for``)."""

    group_id: int
    lane: str
    account_id: int
    addresses: int

    def encoded(self) -> str:
        return f"{self.group_id}:{self.addresses}"


def push(refs: list[LaneRef]) -> list[str]:
    """Queue ``refs`` in their lanes, in one script call; the lanes that need a drain message."""
    return _push(refs, missing_only=False)


def revive(refs: list[LaneRef]) -> list[str]:
    """Queue those of ``refs`` missing from their lanes (lost with Redis, or popped by a worker that died)
    and mark every lane of them that nobody owns; the lanes that need a drain message."""
    return _push(refs, missing_only=True)


def _push(refs: list[LaneRef], *, missing_only: bool) -> list[str]:
    by_lane: dict[tuple[str, int], list[str]] = {}
    for ref in refs:
        by_lane.setdefault((ref.lane, ref.account_id), []).append(ref.encoded())
    args: list[str | int] = [get_settings().redis_key_prefix, LANE_TTL, SENT_SECONDS, int(missing_only)]
    for (lane, account), encoded in by_lane.items():
        args += [lane, account, len(encoded), *encoded]
    woken = script(_PUSH)(keys=[], args=args)
    return [str(lane) for lane in woken]


@dataclass(frozen=True)
class Popped:
    """A round's refs as popped: ``(account, ref)`` pairs in turn order, so they can be put back."""

    lane: str
    taken: list[tuple[str, str]]

    @property
    def group_ids(self) -> list[int]:
        return [int(ref.split(":", 1)[0]) for _, ref in self.taken]


def pop_round(lane: str, max_addresses: int) -> Popped:
    """One round of ``lane``: accounts in turn, up to ``max_addresses`` (one ref over)."""
    found = script(_POP)(keys=[_key(lane, "turns")], args=[_key(lane, "q:"), max_addresses])
    flat = [str(item) for item in found]
    return Popped(lane, list(zip(flat[::2], flat[1::2], strict=True)))


def put_back(popped: Popped) -> None:
    """Refs popped for a claim that failed, back at the heads of their queues in the same order."""
    if popped.taken:
        args = [_key(popped.lane, "q:"), LANE_TTL, *(item for pair in popped.taken for item in pair)]
        script(_PUT_BACK)(keys=[_key(popped.lane, "turns")], args=args)


def take(lane: str) -> str | None:
    """A token owning the lane if nobody drains it now (a drain message may be on its way: it is ours).
    The caller keeps the hold alive (``holds.HOLDS.keep(owner_key(lane), token)``) while it drains.
    The token names the lane (``lane_of``): a claim made under it says which lane's owner to ask about."""
    token = f"{lane} {secrets.token_hex(8)}"
    owning = script(_TAKE)(keys=[owner_key(lane), _key(lane, "wakeup")], args=[token, HOLD_SECONDS])
    return token if owning else None


def wait_for_push(lane: str, seconds: float) -> bool:
    """Block up to ``seconds``, at most ``BLOCKING_SLICE``, for a push to the lane we own; True when one
    came (callers that wait longer loop)."""
    if seconds <= 0:
        return False
    return get_redis().blpop([_key(lane, "wakeup")], timeout=min(seconds, BLOCKING_SLICE)) is not None


def let_go(lane: str, token: str) -> bool:
    """Give the lane up; True when refs still wait, the lane is marked sent and the caller sends one drain
    message."""
    turns, owner = _key(lane, "turns"), owner_key(lane)
    return bool(script(_LET_GO)(keys=[owner, turns], args=[token, SENT_SECONDS]))


def drain_not_sent(lane: str) -> None:
    """The drain message could not be sent: drop its mark so the next push tries again."""
    script(_NOT_SENT)(keys=[owner_key(lane)], args=[])


def owners(lanes: Iterable[str]) -> dict[str, str | None]:
    """Who owns each lane now: a drain's token, ``sent``, or None (nobody, no message on its way)."""
    names = sorted(set(lanes))
    if not names:
        return {}
    found = get_redis().mget([owner_key(lane) for lane in names])
    return {lane: None if owner is None else str(owner) for lane, owner in zip(names, found, strict=True)}


def lane_of(token: str) -> str | None:
    """The lane a hold's token was taken on (None for a token that does not say)."""
    return token.rpartition(" ")[0] or None


def owner_key(lane: str) -> str:
    return _key(lane, "owner")


def _key(lane: str, part: str) -> str:
    return key("lane", lane, part)
