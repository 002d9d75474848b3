"""CPU seconds spent per request by each process of a load run, read from ``/proc`` (Linux).

Requests per second on a 2-core machine shared with other work say as much about the neighbours as about
the service; CPU per request does not: it is what a request costs, and the two cores divided by the sum
is the most this machine could serve if nothing else ran. Counted per process group: the gunicorn
workers (children of the master), the Postgres backends of the bench's database (their process title
names it; a backend that exits during the run loses its last figures, so the pool must keep its
connections, as ours does), the Redis server, and the load client (``RUSAGE_CHILDREN``).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
GROUPS = ("web", "postgres", "redis", "client")


@dataclass(frozen=True)
class Snapshot:
    per_process: dict[str, dict[int, float]]
    client: float


def snapshot(master_pid: int, database: str) -> Snapshot:
    groups: dict[str, dict[int, float]] = {"web": {}, "postgres": {}, "redis": {}}
    for pid in _children(master_pid):
        groups["web"][pid] = _cpu_seconds(pid)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        command = _command(int(entry.name))
        if command.startswith("postgres:") and f" {database} " in command:
            groups["postgres"][int(entry.name)] = _cpu_seconds(int(entry.name))
        elif "redis-server" in command:
            groups["redis"][int(entry.name)] = _cpu_seconds(int(entry.name))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Snapshot(groups, usage.ru_utime + usage.ru_stime)


def per_request_ms(before: Snapshot, after: Snapshot, requests: int) -> dict[str, float]:
    """Milliseconds of CPU per request for each group; ``client`` assumes the run was the only child
    process that ended between the two snapshots."""
    spent = {
        group: sum(seconds - before.per_process[group].get(pid, 0.0) for pid, seconds in pids.items())
        for group, pids in after.per_process.items()
    }
    spent["client"] = after.client - before.client
    return {group: 1000 * spent[group] / requests for group in GROUPS}


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return ""
