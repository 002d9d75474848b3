"""Holds: Redis keys a process keeps while it works (a lane it drains), renewed for as long as it does.

A hold says "a live worker is on this". One background thread per process renews every hold the process
has, every third of ``HOLD_SECONDS``, in one script call, whatever its work is doing meanwhile (a round
may wait on a slow mail server far longer than a hold lasts). So a hold outlives its work by at most
``HOLD_SECONDS``: a worker killed with SIGKILL, or a drain that ended on an error before it could let go,
stops renewing, and the sweeper sends the work again at once (``services.probing.sweep``) instead of
waiting out the job lease (``JOB_LEASE_SECONDS``, the last resort).

A hold found missing (Redis restarted empty) is taken again if nobody else took it meanwhile; one that
someone else holds now is lost, and its work stops at its next check (``lost``). Until every live process
had its turn to renew (``reasserted``: Redis up for a renewal period), a missing hold says nothing of its
holder, and the sweeper takes back no claim on the strength of it.

Trade-off accepted: a process too busy to renew for ``HOLD_SECONDS`` (a CPU-starved gevent worker) looks
dead; its work is sent again and done twice, saved once (the claims' guards, ``services.probing.runs``).
"""

from __future__ import annotations

import logging
import threading
import time

from redis.exceptions import RedisError

from services.redis_client import get_redis, script

log = logging.getLogger(__name__)
HOLD_SECONDS = 10
RENEWAL_SECONDS = HOLD_SECONDS / 3
# KEYS: the held keys. ARGV: seconds, then each key's token. Returns the keys someone else holds now.
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[i + 1] or not holder then
    redis.call('SET', key, ARGV[i + 1], 'EX', ARGV[1])
  else
    table.insert(lost, key)
  end
end
return lost
"""


class Holds:
    """The holds of this process: ``keep`` one as its work starts, ``drop`` it before letting go."""

    def __init__(self, seconds: int = HOLD_SECONDS) -> None:
        self.seconds = seconds
        self._held: dict[str, str] = {}
        self._lost: set[str] = set()
        # Held during a renewal, so a hold dropped (then deleted by its owner) is never renewed after.
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def keep(self, key: str, token: str) -> None:
        """Renew ``key`` (already set to ``token`` by its taker) until ``drop``."""
        with self._lock:
            self._held[key] = token
            self._lost.discard(key)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="holds", daemon=True)
                self._thread.start()

    def drop(self, key: str) -> None:
        with self._lock:
            self._held.pop(key, None)
            self._lost.discard(key)

    def lost(self, key: str) -> bool:
        """Did someone else take ``key`` (ours expired unseen, or Redis restarted and another took it)?"""
        return key in self._lost

    def renew(self) -> None:
        """Every hold of the process, once; a failure (Redis unreachable) waits for the next turn."""
        with self._lock:
            if not self._held:
                return
            keys = list(self._held)
            try:
                lost = script(_RENEW)(keys=keys, args=[self.seconds, *self._held.values()])
            except RedisError as error:
                log.warning("holds of %d lanes not renewed: %s", len(keys), error)
                return
            for key in lost:
                self._held.pop(key, None)
                self._lost.add(key)

    def _serve(self) -> None:
        while True:
            time.sleep(self.seconds / 3)
            self.renew()


def reasserted() -> bool:
    """Has Redis been up long enough (a renewal period and a second) for every live process to have put
    back the holds a restart took? Raises ``RedisError`` while Redis is unreachable."""
    uptime = int(get_redis().info("server")["uptime_in_seconds"])
    return uptime >= RENEWAL_SECONDS + 1


HOLDS = Holds()
