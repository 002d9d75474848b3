"""The fleet's live egresses, in Redis: each probes process registers the egresses of its ``SMTP_EGRESS``
with a heartbeat, so the fleet knows them all (an MX address's lane has seats for each: ``policy.seats``).

One sorted set, members ``<host>|<egress id>`` scored by when their heartbeat runs out (Redis ``TIME``).
Two processes of one host with the same egress count it once (they share its source address); the same
``direct://`` on two hosts counts twice (two addresses). The heartbeat is the holds' renewal
(``services.probing.upkeep.holds``, every third of ``HOLD_SECONDS``): a process that dies stops renewing
and its egresses leave the count within ``HOLD_SECONDS``; one that stops cleanly removes them at once.
A Redis restarted empty gets them back at the next heartbeat.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Sequence

from services import lease_sets
from services.probing.upkeep.holds import HOLD_SECONDS, HOLDS
from services.redis_client import get_redis, key, script
from verifier.egress import Egress

MEMO_SECONDS = 2.0  # a lane's seat count may lag a new or dead egress by this much
_KEY = ("egress", "live")
# KEYS: the set. ARGV: seconds, members. Every member's heartbeat renewed.
_BEAT = (
    lease_sets.LUA
    + """
local expiry = redis_time() + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], expiry, ARGV[i]) end
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])) + 1)
"""
)
# KEYS: the set. The members whose heartbeat has not run out, expired ones dropped.
_LIVE = (
    lease_sets.LUA
    + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', redis_time())
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""
)
_memo: list[float] = [-MEMO_SECONDS, 0]  # when the count was read, the count
_ours: list[str] = []


def member(egress: Egress) -> str:
    return f"{socket.gethostname()}|{egress.id}"


def register(egresses: Sequence[Egress]) -> None:
    """Announce this process's egresses now and at every heartbeat until ``leave``."""
    _ours[:] = [member(egress) for egress in egresses]
    beat()
    if beat not in HOLDS.after_renewal:
        HOLDS.after_renewal.append(beat)


def beat() -> None:
    if _ours:
        script(_BEAT)(keys=[key(*_KEY)], args=[HOLD_SECONDS, *_ours])


def leave() -> None:
    """This process's egresses out of the fleet at once (a clean stop)."""
    if _ours:
        get_redis().zrem(key(*_KEY), *_ours)
    _ours.clear()


def live() -> list[str]:
    """Every live egress of the fleet, as ``<host>|<egress id>``."""
    return [
        item.decode() if isinstance(item, bytes) else str(item) for item in script(_LIVE)(keys=[key(*_KEY)])
    ]


def live_count() -> int:
    """How many egresses the fleet has now, memoized for ``MEMO_SECONDS`` (asked at every dispatch)."""
    if time.monotonic() - _memo[0] > MEMO_SECONDS:
        _memo[:] = [time.monotonic(), len(live())]
    return int(_memo[1])
