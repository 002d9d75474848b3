"""Holds: Redis entries a process keeps while it works (a lane's seat it drains, an SMTP session's slot,
its own ``alive`` mark), renewed for as long as it does.

A hold says "a live worker is on this". One background thread per process renews every hold the process
has, every third of ``HOLD_SECONDS``, in one script call, whatever its work is doing meanwhile (a round
may wait on a slow mail server far longer than a hold lasts). Two kinds: a key set to the holder's token
(a seat), and a member of a lease set (``services.lease_sets``: a session slot of an MX address), scored
by its expiry. So a hold outlives its work by at most ``HOLD_SECONDS``: a worker killed with SIGKILL, or
a drain that ended on an error before it could let go, stops renewing, and the sweeper sends the work
again (``services.probing.upkeep.sweep``) instead of waiting out the job lease (``JOB_LEASE_SECONDS``, the
last resort). A session slot is held the same way rather than for a whole SMTP deadline: the slots a killed
worker had at a busy mail server kept every other worker away from it for a minute and a half, long
enough for their groups to run out of time and be deferred by the greylist retry (five minutes).

Each process also writes down what it holds (``record``, read by ``services.probing.upkeep.liveness``), so a
process found dead has its holds deleted at once by whoever notices, rather than left to run out.

A hold found missing (Redis restarted empty) is taken again if nobody else took it meanwhile; one that
someone else holds now is lost, and its work stops at its next check (``lost``). Until every live process
had its turn to renew (``reasserted``: Redis up for a renewal period), a missing hold says nothing of its
holder, and the sweeper takes back no claim on the strength of it.

Trade-off accepted: a process too busy to renew for ``HOLD_SECONDS`` (a CPU-starved gevent worker) looks
dead; its work is sent again and done twice, saved once (the claims' guards, ``services.probing.runs``),
and a mail server may see one session over its cap meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from redis.exceptions import RedisError

from services.redis_client import get_redis, key, script

log = logging.getLogger(__name__)
HOLD_SECONDS = 10
RENEWAL_SECONDS = HOLD_SECONDS / 3
RECORD_SECONDS = 3 * HOLD_SECONDS  # a dead process's record outlives its holds: it says what to delete
# KEYS: the record, the held keys, then each held member's lease set. ARGV: seconds, record seconds (0:
# the process keeps no record), the number of held keys, each key's token, then each member. Returns the
# keys someone else holds now. A member gone from its set (it ran out while the process was starved) is
# not put back: its slot may be another's now.
_RENEW = """
local seconds, keys, lost, record = tonumber(ARGV[1]), tonumber(ARGV[3]), {}, KEYS[1]
local recording = ARGV[2] ~= '0'
if recording then redis.call('DEL', record) end
for i = 2, keys + 1 do
  local holder, token = redis.call('GET', KEYS[i]), ARGV[i + 2]
  if holder == token or not holder then
    redis.call('SET', KEYS[i], token, 'EX', seconds)
    if recording then redis.call('HSET', record, 'k:' .. KEYS[i], token) end
  else
    table.insert(lost, KEYS[i])
  end
end
local now = redis.call('TIME')
local expiry = tonumber(now[1]) + tonumber(now[2]) / 1000000 + seconds
for i = keys + 2, #KEYS do
  local member = ARGV[i + 2]
  if redis.call('ZSCORE', KEYS[i], member) then
    redis.call('ZADD', KEYS[i], expiry, member)
    redis.call('EXPIRE', KEYS[i], seconds + 1)
    if recording then redis.call('HSET', record, 'm:' .. member, KEYS[i]) end
  end
end
if recording then redis.call('EXPIRE', record, ARGV[2]) end
return lost
"""


class Holds:
    """The holds of this process: ``keep`` one as its work starts, ``drop`` it before letting go."""

    def __init__(self, seconds: int = HOLD_SECONDS) -> None:
        self.seconds = seconds
        self.record = ""  # the hash naming what the process holds (``liveness.register`` names it)
        self.after_renewal: list[Callable[[], object]] = []
        self._held: dict[str, str] = {}
        self._members: dict[str, str] = {}  # member -> its lease set
        self._lost: set[str] = set()
        # Held during a renewal, so a hold dropped (then deleted by its owner) is never renewed after.
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def keep(self, key: str, token: str) -> None:
        """Renew ``key`` (already set to ``token`` by its taker) until ``drop``."""
        with self._lock:
            self._held[key] = token
            self._lost.discard(key)
            self._start()
        self._write_down(f"k:{key}", token)

    def keep_member(self, lease_set: str, member: str) -> None:
        """Renew ``member`` of ``lease_set`` (a lease already granted) until ``drop_member``."""
        with self._lock:
            self._members[member] = lease_set
            self._start()
        self._write_down(f"m:{member}", lease_set)

    def drop(self, key: str) -> None:
        with self._lock:
            self._held.pop(key, None)
            self._lost.discard(key)

    def drop_member(self, member: str) -> None:
        with self._lock:
            self._members.pop(member, None)

    def lost(self, key: str) -> bool:
        """Did someone else take ``key`` (ours expired unseen, or Redis restarted and another took it)?"""
        return key in self._lost

    def renew(self) -> None:
        """Every hold of the process, once; a failure (Redis unreachable) waits for the next turn."""
        with self._lock:
            if not self._held and not self._members:
                return
            held, members = list(self._held), list(self._members)
            all_keys = [self.record or key("holds", "none"), *held, *(self._members[m] for m in members)]
            recorded = RECORD_SECONDS if self.record else 0
            args = [self.seconds, recorded, len(held), *self._held.values(), *members]
            try:
                lost = script(_RENEW)(keys=all_keys, args=args)
            except RedisError as error:
                log.warning("%d holds not renewed: %s", len(held) + len(members), error)
                return
            for name in lost:
                self._held.pop(name, None)
                self._lost.add(name)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="holds", daemon=True)
            self._thread.start()

    def _write_down(self, field: str, value: str) -> None:
        """Into the record at once: a hold taken just before the process died is deleted with the rest."""
        if not self.record:
            return
        try:
            pipe = get_redis().pipeline()
            pipe.hset(self.record, field, value)
            pipe.expire(self.record, RECORD_SECONDS)
            pipe.execute()
        except RedisError as error:
            log.warning("hold not written down (the next renewal does): %s", error)

    def _serve(self) -> None:
        while True:
            time.sleep(self.seconds / 3)
            self.renew()
            for action in self.after_renewal:
                try:
                    action()
                except Exception:
                    log.exception("after renewing holds")


def reasserted() -> bool:
    """Has Redis been up long enough (a renewal period and a second) for every live process to have put
    back the holds a restart took? Raises ``RedisError`` while Redis is unreachable."""
    uptime = int(get_redis().info("server")["uptime_in_seconds"])
    return uptime >= RENEWAL_SECONDS + 1


HOLDS = Holds()
