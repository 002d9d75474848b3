"""After a fault cut work short: lanes handed on, and a sweep made, the moment both stores answer.

A drain that failed (Redis or Postgres gone, a probe our side could not make) leaves work in flight:
claims it could not let go of, a lane it could not hand on, refs a Redis restart took with it; a broker
that restarted empty took the messages it held, plan messages of jobs nobody has planned yet among them.
The beat sweeper finds all of it too, but on its own clock. The worker that saw the failure (a drain
that failed, its broker connection made again: ``workers.reconnect``; a worker found dead, or this one
starting: ``services.probing.upkeep.liveness``) instead tries every ``PAUSE``
seconds: it lets go of the lanes it still holds in Redis (deleted, or handed to a new drain message),
then sweeps once (``services.probing.upkeep.sweep`` after a fault: claims whose hold is gone taken back,
groups missing from their lane queued again, unplanned jobs planned, windows refilled). The first try that
reaches both stores ends it.
"""

from __future__ import annotations

import logging
import threading
import time

from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError

from services.probing.jobs.dispatch import wake
from services.probing.rounds import lanes
from services.probing.upkeep import holds, sweep

log = logging.getLogger(__name__)
PAUSE = 1.0


class Recovery:
    """One per process: ``sweep_when_back`` after a failed drain, with its lane if it could not let go."""

    def __init__(self) -> None:
        self._owed: list[tuple[str, str]] = []
        self._wanted = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def sweep_when_back(self, lane: tuple[str, str] | None = None) -> None:
        """Sweep once both stores answer; first let go of ``lane`` (name, token) if given."""
        with self._lock:
            self._owed += [lane] if lane else []
            self._wanted = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="recovery", daemon=True)
                self._thread.start()

    def _serve(self) -> None:
        while True:
            time.sleep(PAUSE)
            with self._lock:
                owed, self._owed, self._wanted = self._owed, [], False
            if not recover(owed):
                with self._lock:
                    self._owed, self._wanted = owed + self._owed, True
            with self._lock:
                if not self._wanted:
                    self._thread = None
                    return


def recover(owed: list[tuple[str, str]]) -> bool:
    """Let go of ``owed`` lanes (emptying the list as it goes), then sweep; False while a store is still
    unreachable, or while a Redis that restarted has not yet had the live workers' holds put back."""
    try:
        while owed:
            lane, token = owed[0]
            if lanes.let_go(lane, token):
                wake(lane)
            owed.pop(0)
        if not holds.reasserted():
            log.info("Redis restarted a moment ago: sweeping once live workers renewed their holds")
            return False
        touched = sweep.sweep(after_fault=True)
    except (RedisError, DBAPIError) as error:
        log.info("not recovered yet, a store is unreachable: %s", error)
        return False
    except Exception:
        log.exception("recovery sweep failed; the beat sweeper carries on")
        return True
    # after a fault cut work short, a broker connection made again, a worker starting or found dead
    log.warning("sweep made at once: lanes let go, %d jobs swept", touched)
    return True


RECOVERY = Recovery()
