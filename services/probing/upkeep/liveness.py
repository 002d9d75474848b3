"""Worker liveness: a dead worker process noticed in seconds, what it held freed at once, its work resumed.

Every Celery worker process registers as it becomes ready (``register``): an entry in the ``workers`` hash
and an ``alive`` key that is one of its holds (``services.probing.upkeep.holds``), renewed with them, so it
lasts ``HOLD_SECONDS`` past the process. After each renewal every worker looks at the others' keys; one
gone (SIGKILL, the OOM killer, a host that disappeared) is *buried* by the first to see it: the holds its
record names (lane seats, SMTP session slots) are deleted, so its claims are taken back and its seats and
the mail servers it was talking to are free at once, and a sweep runs as after a fault
(``services.probing.upkeep.recovery``): claims taken back, lanes woken, unplanned lists planned again (a plan
message the dead process had taken waits in the broker's unacknowledged set for its visibility timeout,
an hour: ``services.broker``). A worker starting (after a crash, or in a rolling deploy) buries the
entries of its own host whose process is gone without waiting for their keys to run out, and sweeps:
a restarted worker resumes the orphaned work at once. "Its own host" is the hostname, boot and PID
namespace: a process of another container on the same hostname is never judged by its PID.

A worker told to stop (SIGTERM, a deploy) ends its lane turns after the round in hand, each handing its
seat on with a drain message (``lane_runs``), then closes its idle sessions and buries itself (``leave``):
what a rolling restart costs is the rounds in flight.

Trade-off accepted: a worker too starved to renew for ``HOLD_SECONDS`` is buried alive; its work is done
twice and saved once (the claims' guards), and its drains stop at their next check of the hold.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from pathlib import Path

from redis.exceptions import RedisError

from services.probing.upkeep import holds
from services.probing.upkeep.holds import HOLD_SECONDS, HOLDS
from services.probing.upkeep.recovery import RECOVERY
from services.redis_client import get_redis, key, script

log = logging.getLogger(__name__)
STOPPING = threading.Event()  # set when the worker was told to stop: lane turns end after their round
# KEYS: the registry, the dead process's alive key, its record. ARGV: its name. Deletes every hold the
# record names that is still the dead process's, and its entry; 1 when the entry was there (this caller
# buried it), else 0.
_BURY = """
local record = redis.call('HGETALL', KEYS[3])
for i = 1, #record, 2 do
  local field, value = record[i], record[i + 1]
  local name = string.sub(field, 3)
  if string.sub(field, 1, 2) == 'k:' then
    if redis.call('GET', name) == value then redis.call('DEL', name) end
  else
    redis.call('ZREM', value, name)
  end
end
redis.call('DEL', KEYS[2], KEYS[3])
return redis.call('HDEL', KEYS[1], ARGV[1])
"""


class Me:
    """This process as registered: its name in the registry and what it says of where it runs."""

    name = ""
    where = ""


ME = Me()


def register(nodename: str) -> None:
    """This worker process is alive (until ``leave``); bury the dead of its own host, then sweep. With
    Redis unreachable the worker runs unregistered: its death is then noticed as its holds run out."""
    try:
        _register(nodename)
    except RedisError as error:
        log.warning("not registered as alive, Redis unreachable: %s", error)
    RECOVERY.sweep_when_back()  # a worker starting resumes orphaned work as a reconnecting one does


def _register(nodename: str) -> None:
    ME.name = f"{nodename} {os.getpid()} {secrets.token_hex(4)}"
    ME.where = f"{_host()} {os.getpid()} {_started(os.getpid())}"
    HOLDS.record = key("holds", ME.name)
    token = secrets.token_hex(8)
    pipe = get_redis().pipeline()  # one transaction: an entry is never seen without its alive key
    pipe.set(_alive_key(ME.name), token, ex=HOLD_SECONDS)
    pipe.hset(_registry(), ME.name, ME.where)
    pipe.execute()
    HOLDS.keep(_alive_key(ME.name), token)
    HOLDS.after_renewal.append(look_for_the_dead)
    dead = [name for name, where in _peers().items() if _gone_from_this_host(where)]
    _bury_all(dead, "gone from this host")


def look_for_the_dead() -> int:
    """After a renewal: bury the workers whose alive key ran out; how many this process buried (none
    while Redis is unreachable: the holds' renewal says so in the log)."""
    try:
        return _look_for_the_dead()
    except RedisError:
        return 0


def _look_for_the_dead() -> int:
    get_redis().hset(_registry(), ME.name, ME.where)  # back in place after a Redis restart
    peers = [name for name in _peers() if name != ME.name]
    if not peers:
        return 0
    found = get_redis().mget([_alive_key(name) for name in peers])
    gone = [name for name, alive in zip(peers, found, strict=True) if alive is None]
    if not gone or not holds.reasserted():  # after a restart, a missing key says nothing yet
        return 0
    return _bury_all(gone, "stopped renewing")


def leave() -> None:
    """A graceful stop: nothing left in flight; what the process still holds is deleted now."""
    if ME.name:
        HOLDS.after_renewal.clear()  # nor put back by a renewal before the process exits
        HOLDS.drop(_alive_key(ME.name))
        try:
            bury(ME.name)
        except RedisError as error:
            log.warning("holds not given back on stopping (they run out by themselves): %s", error)


def bury(name: str) -> bool:
    """Delete what ``name`` held and its entry; True when this call found the entry."""
    keys = [_registry(), _alive_key(name), key("holds", name)]
    return bool(script(_BURY)(keys=keys, args=[name]))


def _bury_all(names: list[str], why: str) -> int:
    buried = [name for name in names if bury(name)]
    if buried:
        log.warning("%d workers %s, their holds freed: %s", len(buried), why, ", ".join(buried))
        RECOVERY.sweep_when_back()
    return len(buried)


def _peers() -> dict[str, str]:
    found = get_redis().hgetall(_registry())
    return {str(name): str(where) for name, where in found.items()}


def _gone_from_this_host(where: str) -> bool:
    """Was the process ``where`` describes on this host (and PID namespace), and is it not running?"""
    host, pid, started = [*where.split(" "), "", "", ""][:3]
    if host != _host() or not pid.isdigit():
        return False
    return _started(int(pid)) != started


def _host() -> str:
    """Where PIDs mean the same process: hostname, boot and PID namespace."""
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return f"{socket.gethostname()}/{boot}/{os.readlink('/proc/self/ns/pid')}"


def _started(pid: int) -> str:
    """When the process ``pid`` started (clock ticks since boot), or "" when there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[19]  # field 22, counted after the command's parentheses


def _alive_key(name: str) -> str:
    return key("alive", name)


def _registry() -> str:
    return key("workers")
