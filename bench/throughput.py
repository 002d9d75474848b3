"""Throughput of list cleaning through the service, and of reference probers beside it, in one invocation.

The lab, by ``--world``: ``one-per-domain`` (the default, the figures before it existed) is ``--domains``
(200) domains, each with its own MX server (as distinct companies have); ``shared-32`` is 200 domains
behind 32 shared MX addresses (about 6 domains each); ``provider-4`` is 1,000 domains behind 4 (a
provider's, 250 domains each), as real lists are, where the politeness cap per MX address is what binds.
Every SMTP reply is sent ``--latency`` (0.1 s) after its command arrived; 10,000 addresses in all, 80%
real mailboxes: 50 per domain (40 real, 10 unknown), or 10 (8 and 2) in ``provider-4``.

Real gunicorn (``gunicorn.conf.py``, 2 processes x 8 threads), Celery workers as the Procfile runs them
(``worker``: default queue, 8 threads; ``probes``: gevent, 500, ``--probe-workers`` of them), Postgres,
Redis, all on this machine's 2 cores.

The service (``lanes``), on a database and Redis prefix of its own:

- (a) the list as 100 batches of 100 sent by 10 clients at once (``POST /validate/batch``, synchronous);
- (b) the list as one ``POST /bulk/jobs``, upload to ``completed``.

Each row: addresses per second, SMTP sessions the lab servers saw, the most sessions one domain saw in
any 60 s window, and CPU milliseconds of the web and worker processes per address (the workers' alone in
brackets). Then the references, in this process (no HTTP, no database, no politeness):

- ``per-group``: the shape of probing before lanes, one session per domain group and never shared, 100
  groups at a time (the 100 greenlets it was measured with), on the groups the service would cut from
  (a) the batches (each batch's addresses of one domain) and (b) the list (up to
  ``SMTP_MAX_RCPT_PER_SESSION`` addresses of one domain), over the first ``--reference`` addresses;
- every domain's 50 addresses through ``probe_domain_group`` at once, pipelined and lock-step.

Run: ``.venv/bin/python -m bench.throughput`` (prints Markdown for docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import functools
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from bench.validation_workers import (
    _account,
    _get,
    _open_database,
    _post,
    _upload,
    bench_environment,
    process,
)
from maillab import MailLab
from maillab.model import World
from maillab.world import bench_domain, bench_world, shared_mx_world
from verifier.config import EngineConfig
from verifier.dns import MailDomain, MailResolver
from verifier.smtp import probe_domain_group

WINDOW = 60.0


@dataclass(frozen=True)
class BenchWorld:
    """A ``--world``: its domains, the MX addresses they share (None: one each), addresses per domain."""

    domains: int
    addresses: int | None
    per_domain: int

    def build(self) -> World:
        if self.addresses is None:
            return bench_world(self.domains, servers=self.domains)
        return shared_mx_world(self.domains, self.addresses)

    def describe(self) -> str:
        if self.addresses is None:
            return f"{self.domains} domains, one MX each"
        return f"{self.domains:,} domains on {self.addresses} shared MX addresses"


WORLDS = {
    "one-per-domain": BenchWorld(200, None, 50),
    "shared-32": BenchWorld(200, 32, 50),
    "provider-4": BenchWorld(1000, 4, 10),
}
PEAK_RSS: list[str] = []  # one line per configuration, printed after the table


@dataclass(frozen=True)
class Row:
    name: str
    seconds: float
    addresses: int
    sessions: int
    per_domain_minute: int
    cpu_seconds: float
    worker_cpu_seconds: float = 0.0

    def markdown(self) -> str:
        per_address = 1000 / self.addresses
        return (
            f"| {self.name} | {self.addresses / self.seconds:,.0f} | {self.seconds:.1f} s | "
            f"{self.sessions:,} | {self.per_domain_minute} | "
            f"{self.cpu_seconds * per_address:.2f} ms ({self.worker_cpu_seconds * per_address:.2f} ms) |"
        )


def the_list(domains: int, per_domain: int = 50) -> list[str]:
    """``per_domain`` addresses per domain, 80% real (50: user00-39 and nobody00-09), domains interleaved
    as lists are."""
    real = per_domain * 4 // 5
    locals_ = [f"user{j:02d}" for j in range(real)] + [f"nobody{j:02d}" for j in range(per_domain - real)]
    return [f"{local}@{bench_domain(i)}" for local in locals_ for i in range(domains)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--world", choices=list(WORLDS), default="one-per-domain")
    parser.add_argument("--domains", type=int, default=None, help="domains (default: the world's)")
    parser.add_argument("--only", choices=["lanes", "per-group"], default=None)
    parser.add_argument(
        "--probe-workers", type=int, default=1, help="probe worker processes (Procfile: probes=N)"
    )
    parser.add_argument(
        "--reference", type=int, default=10_000, help="addresses the per-group reference probes"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so every process and database is cleaned up
    world = WORLDS[args.world]
    world = replace(world, domains=args.domains or world.domains)
    emails = the_list(world.domains, world.per_domain)
    with MailLab(world.build(), latency=args.latency) as lab:
        print(
            f"lab ({args.world}): {world.describe()}, {args.latency * 1000:.0f} ms per reply; "
            f"{len(emails):,} addresses\n"
        )
        per = "domain" if world.addresses is None else "MX address"
        print(
            f"| configuration, path | addresses/s | wall | SMTP sessions | max per {per} per minute "
            "| CPU per address: web + worker (worker) |"
        )
        print("|---|---:|---:|---:|---:|---:|")
        if args.only in (None, "lanes"):
            _print(service_rows(lab, emails, args.probe_workers))
        if args.only in (None, "per-group"):
            _print(per_group_rows(lab, emails[: args.reference]))
        _print(reference_rows(lab, world.domains, world.per_domain))
        print("", *PEAK_RSS, sep="\n")


def _print(rows: list[Row]) -> None:
    for row in rows:
        print(row.markdown(), flush=True)


def service_rows(lab: MailLab, emails: list[str], probe_workers: int, name: str = "lanes") -> list[Row]:
    rows = []
    with ExitStack() as stack:
        env = stack.enter_context(bench_environment(lab)) | {"WEB_CONCURRENCY": "2"}
        _open_database(env)
        key = _account(env)
        web = stack.enter_context(process(env, _gunicorn(), ready="Booting worker"))
        workers = [
            stack.enter_context(process(env, command, ready=" ready.")) for command in _workers(probe_workers)
        ]
        base = f"http://127.0.0.1:{env['PORT']}"
        pids = [web.pid, *(worker.pid for worker in workers)]
        rows.append(
            _measure(
                lab,
                f"{name}: {len(emails) // 100} batches of 100, 10 in flight",
                pids,
                len(emails),
                lambda: batches(base, key, emails),
            )
        )
        rows.append(
            _measure(lab, f"{name}: POST /bulk/jobs", pids, len(emails), lambda: bulk(base, key, emails))
        )
        peaks = ", ".join(_peak_rss(worker.pid) for worker in workers)
        PEAK_RSS.append(
            f"- {name}: workers' peak RSS (VmHWM, after both paths; threads worker first) {peaks}"
        )
    return rows


def _peak_rss(pid: int) -> str:
    """VmHWM of ``pid`` and of each child process it has (a gevent worker has none)."""
    peaks = []
    for each in [pid, *_children(pid)]:
        status = Path(f"/proc/{each}/status").read_text().splitlines()
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        peaks.append(f"{kib / 1024:.0f} MiB (pid {each})")
    return ", ".join(peaks)


def _gunicorn() -> list[str]:
    from bench.validation_workers import _gunicorn as gunicorn  # noqa: PLC0415

    return gunicorn("web:create_app()")


def _workers(probe_workers: int) -> list[list[str]]:
    """The Procfile's shape: one ``worker`` (default queue, threads: plans bulk lists) and
    ``probe_workers`` ``probes`` processes (gevent: lanes)."""
    from bench.validation_workers import _celery_worker  # noqa: PLC0415

    probes = [_celery_worker(i + 1, "probes", "gevent") for i in range(probe_workers)]
    return [_celery_worker(0, "default", "threads"), *probes]


def _measure(lab: MailLab, name: str, pids: list[int], count: int, work: Callable[[], None]) -> Row:
    lab.reset()
    before = [_tree_cpu(pid) for pid in pids]
    started = time.perf_counter()
    work()
    seconds = time.perf_counter() - started
    spent = [_tree_cpu(pid) - cpu for pid, cpu in zip(pids, before, strict=True)]
    sessions, per_minute = _sessions(lab)
    return Row(name, seconds, count, sessions, per_minute, sum(spent), sum(spent[1:]))


def batches(base: str, key: str, emails: list[str], size: int = 100, in_flight: int = 10) -> None:
    chunks = [emails[i : i + size] for i in range(0, len(emails), size)]

    def send(chunk: list[str]) -> None:
        body = _post(base, key, "/validate/batch", {"emails": chunk})
        if body["status"] != "completed":
            raise RuntimeError(f"batch not completed in time: {body['status']}")

    with ThreadPoolExecutor(in_flight) as pool:
        list(pool.map(send, chunks))


def bulk(base: str, key: str, emails: list[str]) -> None:
    job = _upload(base, key, "\n".join(["email", *emails]).encode())
    while _get(base, key, f"/bulk/jobs/{job['id']}")["status"] not in ("completed", "failed"):
        time.sleep(0.2)


def _sessions(lab: MailLab) -> tuple[int, int]:
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


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its children, alive ones."""
    seconds = 0.0
    for each in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds += (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (100 Hz)
    return seconds


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def per_group_rows(lab: MailLab, emails: list[str], size: int = 100, at_once: int = 100) -> list[Row]:
    """The per-group reference: every domain group on a session of its own, ``at_once`` groups at a time;
    the groups of the batches of ``size`` addresses, then those of the whole list."""
    config = _reference_config(lab)
    domains = _resolved(config, emails)
    batches = [emails[i : i + size] for i in range(0, len(emails), size)]
    as_batches = [
        group for batch in batches for group in _groups(domains, batch, config.smtp_max_rcpt_per_session)
    ]
    as_list = _groups(domains, emails, config.smtp_max_rcpt_per_session)
    probe = functools.partial(_probe_all, config=config, at_once=at_once)
    return [
        _measure(
            lab,
            f"per-group reference: {len(batches)} batches of {size}, {at_once} groups at once",
            [],
            len(emails),
            functools.partial(probe, as_batches),
        ),
        _measure(
            lab,
            f"per-group reference: the list, {at_once} groups at once",
            [],
            len(emails),
            functools.partial(probe, as_list),
        ),
    ]


def _reference_config(lab: MailLab) -> EngineConfig:
    return lab.engine_config(smtp_timeout=10.0, smtp_deadline=120.0, smtp_banner_timeout=10.0)


def _resolved(config: EngineConfig, emails: list[str]) -> dict[str, MailDomain]:
    resolver = MailResolver(config)
    return {
        domain: resolver.resolve(domain) for domain in dict.fromkeys(e.rpartition("@")[2] for e in emails)
    }


def _groups(
    domains: dict[str, MailDomain], emails: list[str], most: int
) -> list[tuple[MailDomain, list[str]]]:
    """``emails`` cut as the service plans them: by domain, at most ``most`` addresses a group."""
    by_domain: dict[str, list[str]] = {}
    for email in emails:
        by_domain.setdefault(email.rpartition("@")[2], []).append(email)
    return [
        (domains[domain], addresses[i : i + most])
        for domain, addresses in by_domain.items()
        for i in range(0, len(addresses), most)
    ]


def reference_rows(lab: MailLab, domains: int, per_domain: int) -> list[Row]:
    """Every domain's addresses through ``probe_domain_group`` at once, in this process."""
    config = _reference_config(lab)
    emails = the_list(domains, per_domain)
    groups = _groups(_resolved(config, emails), emails, len(emails))
    count = sum(len(addresses) for _, addresses in groups)
    rows = []
    for name, cfg in (
        ("reference: one session per domain, all parallel, pipelined", config),
        (
            "reference: one session per domain, all parallel, lock-step",
            replace(config, smtp_pipelining=False),
        ),
    ):
        rows.append(_measure(lab, name, [], count, functools.partial(_probe_all, groups, config=cfg)))
    return rows


def _probe_all(
    groups: list[tuple[MailDomain, list[str]]], *, config: EngineConfig, at_once: int | None = None
) -> None:
    """Every group through ``probe_domain_group`` on sessions of its own, ``at_once`` (all) at a time."""

    def probe(group: tuple[MailDomain, list[str]]) -> None:
        probe_domain_group(group[0], group[1], config=config)

    with ThreadPoolExecutor(at_once or len(groups)) as pool:
        list(pool.map(probe, groups))


if __name__ == "__main__":
    main()
