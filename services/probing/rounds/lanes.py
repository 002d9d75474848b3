"""Lanes: the domain groups waiting for one mail server, from every job of every account, in Redis.

A lane holds the groups of every domain behind one MX address (``mx/<ip>``), or of one domain when it has
none (``services.probing.rounds.routes``): addresses of many batches, single validations and bulk lists share
connections instead of opening one each. Workers drain a lane from its *seats*, one drain per seat, each
over one warm SMTP session (``services.probing.rounds.lane_runs``): an MX address's lane has
``SMTP_SESSIONS_PER_MX_HOST`` seats, the sessions the politeness cap allows it, so its domains share all
of them, whichever domain has the most addresses; other lanes have one. A seat is named as its lane plus
``#<n>`` (the first, ``n`` 0, as the lane itself). Keys, under the service's Redis prefix:

- ``lane:<lane>:q:<account>`` a list of refs ``<group id>:<addresses>:<domain>``, oldest first;
- ``lane:<lane>:turns`` the accounts with refs waiting, in turn order: a round takes one ref per account
  in turn, so one account's million-address list never starves another's batch of 10;
- ``lane:<seat>:owner`` ``sent`` while a drain message is on its way (for ``SENT_SECONDS``: a message
  lost after that is sent again by the sweeper), else the token of the worker draining from the seat, a
  hold its process renews (``services.probing.upkeep.holds``): a worker that dies owning a seat frees it
  within ``HOLD_SECONDS``. A busy lane costs one broker message per seat and turn, not one per group; a push
  wakes no more seats than rounds of each domain wait (a batch's few addresses at an MX address of one
  domain ride one session, as with a lane per domain; a big domain's list is carried by every seat);
- ``lane:<lane>:wakeup`` wake-ups pushed by a push while workers own seats: owners wait on it (a blocking
  pop) between rounds instead of polling, so groups of batches in flight join the lane's warm sessions.

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

from services.probing.fleet.fleet_engine import shared_engine
from services.probing.upkeep.holds import HOLD_SECONDS
from services.redis_client import get_redis, key, script
from settings import BLOCKING_SLICE, get_settings

LANE_TTL = 86_400  # a lane nobody drains for a day is dropped; its groups come back through the sweeper
# A drain message is taken by a worker within milliseconds unless the probes queue is backed up; one
# still not taken after this long may be lost (a Redis restarted empty, a worker killed holding it), so
# the sweeper may send another: a duplicate finds the lane owned and costs one empty task.
SENT_SECONDS = 30

# KEYS: none (one script for many lanes). ARGV: key prefix, ttl, sent, "missing" (1: push only refs not
# already queued), addresses a round may take, addresses a write carries, then per lane: lane, seats,
# account, number of refs, refs... Returns the seats that need a drain message: one per round's worth of
# each domain's addresses waiting (a domain's refs go to a round together, ``_POP``), but no more than one
# per write's worth of all the addresses waiting (a round's domains share its writes, ``relay``), up to its
# seats, counting those owned or with a message on its way. Owners waiting between rounds get as many
# wake-ups as seats are wanted: a push of a few small groups wakes one owner, which takes them all.
_PUSH = """
local prefix, ttl, sent, missing, i, woken = ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1', 7, {}
local round, width = tonumber(ARGV[5]), tonumber(ARGV[6])
while i <= #ARGV do
  local name, seats = ARGV[i], tonumber(ARGV[i + 1])
  local lane = prefix .. 'lane:' .. name .. ':'
  local account, n = ARGV[i + 2], tonumber(ARGV[i + 3])
  local queue = lane .. 'q:' .. account
  for j = i + 4, i + 3 + n do
    if not (missing and redis.call('LPOS', queue, ARGV[j])) then redis.call('RPUSH', queue, ARGV[j]) end
  end
  if redis.call('EXISTS', queue) == 1 then
    redis.call('EXPIRE', queue, ttl)
    if not redis.call('LPOS', lane .. 'turns', account) then redis.call('RPUSH', lane .. 'turns', account) end
    redis.call('EXPIRE', lane .. 'turns', ttl)
  end
  local rounds, wanted, addresses, all = 0, 0, {}, 0
  for _, waiting in ipairs(seats > 1 and redis.call('LRANGE', lane .. 'turns', 0, -1) or {}) do
    for _, ref in ipairs(redis.call('LRANGE', lane .. 'q:' .. waiting, 0, -1)) do
      local domain = string.match(ref, '^%d+:%d+:(.+)$') or ref
      local before, size = addresses[domain] or 0, tonumber(string.match(ref, '^%d+:(%d+)'))
      addresses[domain], all = before + size, all + size
      rounds = rounds + math.ceil(addresses[domain] / round) - math.ceil(before / round)
      wanted = math.min(rounds, math.ceil(all / width))
      if wanted >= seats then break end
    end
    if wanted >= seats then break end
  end
  if seats == 1 then wanted = 1 end
  local busy, draining, free = 0, 0, {}
  for s = 0, seats - 1 do
    local seat = s == 0 and name or (name .. '#' .. s)
    local owner = redis.call('GET', prefix .. 'lane:' .. seat .. ':owner')
    if not owner then
      table.insert(free, seat)
    else
      busy = busy + 1
      if owner ~= 'sent' then draining = draining + 1 end
    end
  end
  for _, seat in ipairs(free) do
    if busy >= math.min(wanted, seats) then break end
    redis.call('SET', prefix .. 'lane:' .. seat .. ':owner', 'sent', 'EX', sent)
    table.insert(woken, seat)
    busy = busy + 1
  end
  for _ = 1, math.min(draining, math.max(wanted, 1)) do redis.call('RPUSH', lane .. 'wakeup', '1') end
  if draining > 0 then redis.call('EXPIRE', lane .. 'wakeup', 60) end
  i = i + 4 + n
end
return woken
"""
# KEYS: turns. ARGV: queue key prefix, max addresses, seats, least refs. Returns account, ref, account,
# ref...: one account's turn at a time: the account goes to the back of the turns (a rotation, so the key
# keeps its expiry), or leaves them once its queue is empty. A lane of several seats gives a round its
# share of the refs waiting, so a big backlog goes to the seats side by side, but never fewer than ``least``
# (what one pipelined write carries): a few small groups (a batch's one address at a domain) ride one
# write of one session, where splitting them would cost the same round trip on each seat, and a round
# each. Then, up to the addresses allowed, the round takes the refs waiting for the domains it already
# has, whatever their account or place: they ride the same RCPT round trips (``lane_runs`` probes one
# domain's claims as one group) instead of costing a round of their own later.
_POP = """
local taken, total, most = {}, 0, -1
if tonumber(ARGV[3]) > 1 then
  local waiting, enough = 0, tonumber(ARGV[2]) * tonumber(ARGV[3])
  for _, account in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    waiting = waiting + redis.call('LLEN', ARGV[1] .. account)
    if waiting >= enough then break end  -- a share this big: the addresses allowed bind first
  end
  most = math.max(math.ceil(waiting / tonumber(ARGV[3])), tonumber(ARGV[4]))
end
while total < tonumber(ARGV[2]) and #taken ~= 2 * most do
  local account = redis.call('LMOVE', KEYS[1], KEYS[1], 'LEFT', 'RIGHT')
  if not account then break end
  local queue = ARGV[1] .. account
  local ref = redis.call('LPOP', queue)
  if redis.call('LLEN', queue) == 0 then redis.call('RPOP', KEYS[1]) end
  if ref then
    table.insert(taken, account)
    table.insert(taken, ref)
    total = total + tonumber(string.match(ref, '^%d+:(%d+)'))
  end
end
local domains = {}
for k = 2, #taken, 2 do
  local domain = string.match(taken[k], '^%d+:%d+:(.+)$')
  if domain then domains[domain] = true end
end
if next(domains) then
  for _, account in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if total >= tonumber(ARGV[2]) then break end  -- a full round reads no more queues
    local queue = ARGV[1] .. account
    for _, ref in ipairs(redis.call('LRANGE', queue, 0, -1)) do
      if total >= tonumber(ARGV[2]) then break end
      if domains[string.match(ref, '^%d+:%d+:(.+)$') or ''] then
        redis.call('LREM', queue, 1, ref)
        table.insert(taken, account)
        table.insert(taken, ref)
        total = total + tonumber(string.match(ref, '^%d+:(%d+)'))
      end
    end
    if redis.call('LLEN', queue) == 0 then redis.call('LREM', KEYS[1], 0, account) end
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
# KEYS: owner. ARGV: token, hold seconds. 1 when the seat is now ours (nobody else drains from it). A
# stale wake-up left by an earlier owner costs one empty pop; deleting it could eat another seat's.
_TAKE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= 'sent' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
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
    seats: int = 1  # drains at once: an MX address's sessions (``routes.seats_for``), else one
    domain: str = ""  # its addresses' domain: a round takes the refs of the domains it has together

    def encoded(self) -> str:
        return (
            f"{self.group_id}:{self.addresses}:{self.domain}"
            if self.domain
            else f"{self.group_id}:{self.addresses}"
        )


def push(refs: list[LaneRef]) -> list[str]:
    """Queue ``refs`` in their lanes, in one script call; the seats that need a drain message."""
    return _push(refs, missing_only=False)


def revive(refs: list[LaneRef]) -> list[str]:
    """Queue those of ``refs`` missing from their lanes (lost with Redis, or popped by a worker that died)
    and mark the seats their lanes' refs can keep busy; the seats that need a drain message."""
    return _push(refs, missing_only=True)


def _push(refs: list[LaneRef], *, missing_only: bool) -> list[str]:
    by_lane: dict[tuple[str, int, int], list[str]] = {}
    for ref in refs:
        by_lane.setdefault((ref.lane, ref.seats, ref.account_id), []).append(ref.encoded())
    config = shared_engine().config
    args: list[str | int] = [
        get_settings().redis_key_prefix,
        LANE_TTL,
        SENT_SECONDS,
        int(missing_only),
        config.smtp_max_rcpt_per_session,
        config.smtp_session_max_rejections,  # at most this many RCPTs are ever in one write
    ]
    for (lane, seats, account), encoded in by_lane.items():
        args += [lane, seats, account, len(encoded), *encoded]
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


def pop_round(lane: str, max_addresses: int, seats: int = 1, least: int = 1) -> Popped:
    """One round of ``lane``: accounts in turn, up to ``max_addresses`` (one ref over), and with several
    ``seats`` at most a seat's share of the refs waiting, or ``least`` refs if that is more."""
    args = [_key(lane, "q:"), max_addresses, seats, least]
    found = script(_POP)(keys=[_key(lane, "turns")], args=args)
    flat = [str(item) for item in found]
    return Popped(lane, list(zip(flat[::2], flat[1::2], strict=True)))


def put_back(popped: Popped) -> None:
    """Refs popped for a claim that failed, back at the heads of their queues in the same order."""
    if popped.taken:
        args = [_key(popped.lane, "q:"), LANE_TTL, *(item for pair in popped.taken for item in pair)]
        script(_PUT_BACK)(keys=[_key(popped.lane, "turns")], args=args)


def take(seat: str) -> str | None:
    """A token owning the seat if nobody drains from it now (a drain message may be on its way: it is
    ours). The caller keeps the hold alive (``holds.HOLDS.keep(owner_key(seat), token)``) while it drains
    the seat's lane (``lane_of_seat``). The token names the seat (``lane_of``): a claim made under it says
    which owner to ask about."""
    token = f"{seat} {secrets.token_hex(8)}"
    owning = script(_TAKE)(keys=[owner_key(seat)], args=[token, HOLD_SECONDS])
    return token if owning else None


def seat_name(lane: str, number: int) -> str:
    """The name of a lane's ``number``-th seat: the lane's own for the first (a lane of one seat is named
    as its seat)."""
    return lane if number == 0 else f"{lane}#{number}"


def seat_number(seat: str) -> int:
    """Which of its lane's seats ``seat`` is (``seat_name``'s ``number``)."""
    return int(seat.partition("#")[2] or 0)


def lane_of_seat(seat: str) -> str:
    """The lane a seat drains (neither domains nor addresses hold a ``#``)."""
    return seat.partition("#")[0]


def wait_for_push(lane: str, seconds: float) -> bool:
    """Block up to ``seconds``, at most ``BLOCKING_SLICE``, for a push to the lane we own; True when one
    came (callers that wait longer loop)."""
    if seconds <= 0:
        return False
    return get_redis().blpop([_key(lane, "wakeup")], timeout=min(seconds, BLOCKING_SLICE)) is not None


def let_go(seat: str, token: str) -> bool:
    """Give the seat up; True when refs still wait in its lane, the seat is marked sent and the caller
    sends one drain message."""
    turns, owner = _key(lane_of_seat(seat), "turns"), owner_key(seat)
    return bool(script(_LET_GO)(keys=[owner, turns], args=[token, SENT_SECONDS]))


def drain_not_sent(seat: str) -> None:
    """The drain message could not be sent: drop its mark so the next push tries again."""
    script(_NOT_SENT)(keys=[owner_key(seat)], args=[])


def owners(seats: Iterable[str]) -> dict[str, str | None]:
    """Who owns each seat now: a drain's token, ``sent``, or None (nobody, no message on its way)."""
    names = sorted(set(seats))
    if not names:
        return {}
    found = get_redis().mget([owner_key(seat) for seat in names])
    return {seat: None if owner is None else str(owner) for seat, owner in zip(names, found, strict=True)}


def lane_of(token: str) -> str | None:
    """The seat a hold's token was taken on (None for a token that does not say)."""
    return token.rpartition(" ")[0] or None


def owner_key(seat: str) -> str:
    return _key(seat, "owner")


def _key(lane: str, part: str) -> str:
    return key("lane", lane, part)
