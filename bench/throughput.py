"""Throughput of list cleaning through the service, and of reference probers beside it, in one invocation.

The lab, by ``--world``: ``one-per-domain`` (the default, the figures before it existed) is ``--domains``
(200) domains, each with its own MX server (as distinct companies have); ``shared-32`` is 200 domains
behind 32 shared MX addresses (about 6 domains each); ``provider-4`` is 1,000 domains behind 4 (a
provider's, 250 domains each, with their quirks: ``maillab.world.PROVIDER_QUIRKS``, one taking 20
recipients per session, one answering every command 300 ms late), as real lists are, where the politeness
cap per MX address is what binds. Every SMTP reply is sent ``--latency`` (0.1 s) after its command
arrived; 10,000 addresses in all, 80% real mailboxes: 50 per domain (40 real, 10 unknown), or 10 (8 and
2) in ``provider-4``.

Real gunicorn (``gunicorn.conf.py``, 2 processes x 8 threads), Celery workers as the Procfile runs them
(``worker``: default queue, 8 threads; ``probes``: gevent, 500, ``--probe-workers`` of them), Postgres,
Redis, all on this machine's 2 cores.

The service (``lanes``), on a database and Redis prefix of its own:

- (a) the list as 100 batches of 100 sent by 10 clients at once (``POST /validate/batch``, synchronous);
- (b) the list as one ``POST /bulk/jobs``, upload to ``completed`` (its download, after the clock, is
  checked);
- (c) with ``--beside N``: a list of N addresses (the lab grows to hold them) with batches of 10 of another
  account beside it, against the same batches alone (``bench/beside.py``).

Each row (``bench/lab_measure.py``): addresses per second, SMTP sessions the lab servers saw, the most one
MX address saw in any 60 s window, verdicts that came out wrong (a ``userNN`` judged invalid or a
``nobodyNN`` valid), and CPU milliseconds of the web and worker processes per address (the workers' alone
in brackets). Then the references, in this process (``bench/references.py``): the polite reference (the
best a prober can do under the service's own politeness policy, ``bench/polite_reference.py``), the
per-group path (``--only per-group`` or the default), and every domain at once with no politeness. Last,
the service as a fraction of the polite reference, path by path.

Run: ``.venv/bin/python -m bench.throughput --world shared-32 --only lanes`` (prints Markdown for
docs/benchmarks.md; ``--only references`` runs the in-process references alone, in a minute).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, replace

import requests

from bench.beside import beside
from bench.lab_measure import Check, Row, measure, peak_rss, wrong_verdicts
from bench.references import impolite_rows, per_group_rows, polite_rows
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
from maillab.world import bench_domain, bench_world, provider_world, shared_mx_world


@dataclass(frozen=True)
class BenchWorld:
    """A ``--world``: its domains, the MX addresses they share (None: one each), addresses per domain."""

    domains: int
    addresses: int | None
    per_domain: int
    build_shared: Callable[[int, int], World] = shared_mx_world

    def build(self) -> World:
        if self.addresses is None:
            return bench_world(self.domains, servers=self.domains)
        return self.build_shared(self.domains, self.addresses)

    def describe(self) -> str:
        if self.addresses is None:
            return f"{self.domains} domains, one MX each"
        return f"{self.domains:,} domains on {self.addresses} shared MX addresses"


WORLDS = {
    "one-per-domain": BenchWorld(200, None, 50),
    "shared-32": BenchWorld(200, 32, 50),
    "provider-4": BenchWorld(1000, 4, 10, lambda domains, _: provider_world(domains)),
}
NOTES: list[str] = []  # peak RSS, the batches beside a list: printed after the table


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
    parser.add_argument("--only", choices=["lanes", "per-group", "references"], default=None)
    parser.add_argument(
        "--probe-workers", type=int, default=1, help="probe worker processes (Procfile: probes=N)"
    )
    parser.add_argument(
        "--reference", type=int, default=10_000, help="addresses the per-group reference probes"
    )
    parser.add_argument(
        "--beside", type=int, default=0, help="then a list this long with batches of 10 beside it (0: none)"
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so every process and database is cleaned up
    world = WORLDS[args.world]
    world = replace(world, domains=args.domains or world.domains)
    emails = the_list(world.domains, world.per_domain)
    lab_world = replace(world, domains=max(world.domains, math.ceil(args.beside / world.per_domain)))
    with MailLab(lab_world.build(), latency=args.latency) as lab:
        print(
            f"lab ({args.world}): {world.describe()}, {args.latency * 1000:.0f} ms per reply; "
            f"{len(emails):,} addresses\n"
        )
        print(
            "| configuration, path | addresses/s | wall | SMTP sessions | max per MX address per minute "
            "| wrong verdicts | CPU per address: web + worker (worker) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        service = []
        if args.only in (None, "lanes"):
            beside_list = the_list(lab_world.domains, world.per_domain)[: args.beside]
            service = service_rows(lab, emails, args.probe_workers, beside_list)
        _print(service)
        polite = polite_rows(lab, emails)
        _print(polite)
        if args.only in (None, "per-group"):
            _print(per_group_rows(lab, emails[: args.reference]))
        _print(impolite_rows(lab, emails))
        print("", *NOTES, sep="\n")
        _fractions(service, polite[0])


def _print(rows: list[Row]) -> None:
    for row in rows:
        print(row.markdown(), flush=True)


def _fractions(service: list[Row], polite: Row) -> None:
    """Each service path's rate and sessions over the polite reference's of the same run."""
    for row in service:
        print(
            f"- {row.name}: {row.rate / polite.rate:.2f} of the polite reference's addresses/s, "
            f"{row.sessions / max(1, polite.sessions):.2f} times its sessions"
        )


def service_rows(
    lab: MailLab, emails: list[str], probe_workers: int, beside_list: list[str], name: str = "lanes"
) -> list[Row]:
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
        title = f"{name}: {len(emails) // 100} batches of 100, 10 in flight"
        rows.append(measure(lab, title, pids, len(emails), lambda: batches(base, key, emails)))
        rows.append(
            measure(lab, f"{name}: POST /bulk/jobs", pids, len(emails), lambda: bulk(base, key, emails))
        )
        peaks = ", ".join(peak_rss(worker.pid) for worker in workers)
        NOTES.append(f"- {name}: workers' peak RSS (VmHWM, after both paths; threads worker first) {peaks}")
        if beside_list:
            domains = list(dict.fromkeys(email.rpartition("@")[2] for email in beside_list))
            NOTES.append(beside(base, key, _account(env), beside_list, domains))
    return rows


def _gunicorn() -> list[str]:
    from bench.validation_workers import _gunicorn as gunicorn  # noqa: PLC0415

    return gunicorn("web:create_app()")


def _workers(probe_workers: int) -> list[list[str]]:
    """The Procfile's shape: one ``worker`` (default queue, threads: plans bulk lists) and
    ``probe_workers`` ``probes`` processes (gevent: lanes)."""
    from bench.validation_workers import _celery_worker  # noqa: PLC0415

    probes = [_celery_worker(i + 1, "probes", "gevent") for i in range(probe_workers)]
    return [_celery_worker(0, "default", "threads"), *probes]


def batches(base: str, key: str, emails: list[str], size: int = 100, in_flight: int = 10) -> Check:
    chunks = [emails[i : i + size] for i in range(0, len(emails), size)]

    def send(chunk: list[str]) -> int:
        body = _post(base, key, "/validate/batch", {"emails": chunk})
        if body["status"] != "completed":
            raise RuntimeError(f"batch not completed in time: {body['status']}")
        return wrong_verdicts((result["email"], result["isValid"]) for result in body["results"])

    with ThreadPoolExecutor(in_flight) as pool:
        wrong = sum(pool.map(send, chunks))
    return lambda: wrong


def bulk(base: str, key: str, emails: list[str]) -> Check:
    job = _upload(base, key, "\n".join(["email", *emails]).encode())
    path = f"/bulk/jobs/{job['id']}"
    while _get(base, key, path)["status"] not in ("completed", "failed"):
        time.sleep(0.2)
    return lambda: _download_wrong(base, key, path, len(emails))


def _download_wrong(base: str, key: str, path: str, count: int) -> int:
    """Wrong verdicts in the list's CSV download; a row missing counts as wrong."""
    response = requests.get(f"{base}{path}/download", headers={"X-API-Key": key}, timeout=600)
    rows = list(csv.DictReader(io.StringIO(response.text)))
    judged = [(row["result_email"], row["result_isValid"].lower() == "true") for row in rows]
    return wrong_verdicts(judged) + max(0, count - len(rows))


if __name__ == "__main__":
    main()
