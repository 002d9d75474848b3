"""What ``bench/throughput.py`` measures of one path: wall time, the SMTP sessions the lab's servers saw
(the most one MX address saw in any 60 s window too), the CPU of the service's processes, and how many
verdicts came out wrong.

Every lab address ``userNN@`` is a real mailbox and every ``nobodyNN@`` is not (``maillab.world``), so a
verdict is right when it says exactly that; a path hands back the check as a callable that runs after the
clock stopped (a list's download is not part of its time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from maillab import MailLab

WINDOW = 60.0
Check = Callable[[], int]  # how many verdicts were wrong
Work = Callable[[], Check]


@dataclass(frozen=True)
class Row:
    name: str
    seconds: float
    addresses: int
    sessions: int
    per_mx_minute: int
    wrong: int
    cpu_seconds: float = 0.0
    worker_cpu_seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.addresses / self.seconds

    def markdown(self) -> str:
        per_address = 1000 / self.addresses
        cpu = (
            f"{self.cpu_seconds * per_address:.2f} ms ({self.worker_cpu_seconds * per_address:.2f} ms)"
            if self.cpu_seconds
            else ""
        )
        return (
            f"| {self.name} | {self.rate:,.0f} | {self.seconds:.1f} s | {self.sessions:,} | "
            f"{self.per_mx_minute} | {self.wrong} | {cpu} |"
        )


def measure(lab: MailLab, name: str, pids: list[int], count: int, work: Work) -> Row:
    """Run ``work`` on a lab with no session history; CPU of the processes ``pids`` (and children)."""
    lab.reset()
    before = [tree_cpu(pid) for pid in pids]
    started = time.perf_counter()
    check = work()
    seconds = time.perf_counter() - started
    spent = [tree_cpu(pid) - cpu for pid, cpu in zip(pids, before, strict=True)]
    sessions, per_minute = sessions_seen(lab)
    return Row(name, seconds, count, sessions, per_minute, check(), sum(spent), sum(spent[1:]))


def expected_valid(email: str) -> bool:
    return email.startswith("user")


def wrong_verdicts(valid: Iterable[tuple[str, bool]]) -> int:
    """Of ``(address, judged deliverable)`` pairs, those judged otherwise than the lab's mailboxes are."""
    return sum(1 for email, ok in valid if ok != expected_valid(email))


def sessions_seen(lab: MailLab) -> tuple[int, int]:
    """Sessions the bench servers saw, and the most one server (one MX address) saw in a 60 s window."""
    total, worst = 0, 0
    for server_name, server in lab.servers.items():
        if not server_name.startswith("bench"):
            continue
        starts = sorted(session[0].at for session in server.arrivals() if session)
        total += server.sessions_opened
        for i, start in enumerate(starts):
            worst = max(worst, sum(1 for other in starts[i:] if other - start < WINDOW))
    return total, worst


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its children, alive ones."""
    seconds = 0.0
    for each in [pid, *children(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds += (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (100 Hz)
    return seconds


def peak_rss(pid: int) -> str:
    """VmHWM of ``pid`` and of each child process it has (a gevent worker has none)."""
    peaks = []
    for each in [pid, *children(pid)]:
        status = Path(f"/proc/{each}/status").read_text().splitlines()
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        peaks.append(f"{kib / 1024:.0f} MiB (pid {each})")
    return ", ".join(peaks)


def children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
