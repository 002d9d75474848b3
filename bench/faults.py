"""Fault benchmark: list cleaning while a store or a process fails under it, and what is left afterwards.

Each scenario runs on fresh stores of its own (``bench.fault_stack``: a Postgres cluster and a
``redis-server`` started here, never the machine's shared ones) with the Procfile's processes on them and
the mail lab answering every SMTP command after ``--latency`` (0.1 s). An Enterprise Plus account uploads a
``--list`` (5,000) address bulk list; once a fifth of it is done, ``--batches`` (20) clients each send a
batch of ``--batch-size`` (100) and wait, and the fault is made while they do (at most 5 s later):

- ``none``: no fault, the reference time;
- ``postgres-restart``: ``pg_ctl restart -m fast`` (every session ended, a clean start);
- ``postgres-outage``: Postgres stopped for ``--outage`` (20) seconds, then started;
- ``redis-restart``: Redis stopped and started empty (no persistence, like production's);
- ``redis-restart-aof``: the same with an append-only file (every key comes back);
- ``kill-probes``: the probes worker killed with SIGKILL and another started, as a supervisor would;
- ``kill-worker``: the same for the ``worker`` process (default queue: plans, sweeps);
- ``term-probes``, ``term-worker``: the process told to stop (SIGTERM, a warm shutdown, as a deploy
  does; SIGKILL if it outlives 15 s) and another started;
- ``rolling-restart``: every process type in turn (web, worker, webhooks, probes, beat) told to stop and
  started again, as a rolling deploy does;
- ``kill-web``: one gunicorn worker killed with SIGKILL (its master starts another; its requests drop).

Per scenario: the list's time from upload to done, its time after the fault ended, lost items (jobs
unfinished or rows without a result) and doubled ones (results counted twice), whether every job was
charged exactly once for its distinct addresses, ``batch.completed`` events per job, list rows whose
verdict differs from the fault-free run's without being ``unknown``, and the target: the list done within
the fault-free time + the outage + 30 s.

Run: ``.venv/bin/python -m bench.faults`` (prints Markdown for docs/benchmarks.md); ``--scenarios none``
with a small ``--list`` is the quick check ``tests/bench`` runs.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench import fault_load
from bench.fault_stack import Service, running_service
from maillab import MailLab
from maillab.world import bench_world
from tests.faults.procfile import PROCESS_TYPES

SLACK = 30.0  # the target: fault-free time + outage + this
HEADER = (
    "| fault | list done in | fault lasted | list done after the fault | batch answers | lost / doubled "
    "| quota | batch.completed per job | verdicts changed | within target |\n"
    "|---|---:|---:|---:|---|---:|---|---|---:|---|"
)


@dataclass(frozen=True)
class Fault:
    """What a scenario does to the running service; returns when the fault is over."""

    name: str
    make: Callable[[Service, float], None]
    persistent_redis: bool = False


def _restart_postgres(service: Service, _outage: float) -> None:
    service.postgres.stop("fast")
    service.postgres.start()


def _postgres_outage(service: Service, outage: float) -> None:
    service.postgres.stop("fast")
    time.sleep(outage)
    service.postgres.start()


def _restart_redis(service: Service, _outage: float) -> None:
    service.redis.stop()
    service.redis.start()


def _rolling_restart(service: Service, _outage: float) -> None:
    for kind in PROCESS_TYPES:
        service.started.restart(kind)


def _kill_web_worker(service: Service, _outage: float) -> None:
    os.kill(service.processes["web"].worker_pids()[0], signal.SIGKILL)


FAULTS = {
    fault.name: fault
    for fault in (
        Fault("none", lambda _service, _outage: None),
        Fault("postgres-restart", _restart_postgres),
        Fault("postgres-outage", _postgres_outage),
        Fault("redis-restart", _restart_redis),
        Fault("redis-restart-aof", _restart_redis, persistent_redis=True),
        Fault("kill-probes", lambda service, _outage: service.started.kill("probes")),
        Fault("kill-worker", lambda service, _outage: service.started.kill("worker")),
        Fault("term-probes", lambda service, _outage: service.started.restart("probes")),
        Fault("term-worker", lambda service, _outage: service.started.restart("worker")),
        Fault("rolling-restart", _rolling_restart),
        Fault("kill-web", _kill_web_worker),
    )
}


@dataclass(frozen=True)
class Run:
    """One scenario's figures."""

    fault: str
    list_seconds: float | None
    fault_seconds: float  # from the fault's start to its end
    after_fault: float | None  # from the fault's end to the list done
    batches: str  # how the waiting clients were answered
    books: fault_load.Books
    changed: int  # list rows whose verdict differs from the fault-free run's, neither unknown

    def within(self, reference: float | None, outage: float) -> str:
        if self.list_seconds is None or reference is None:
            return "no"
        return "yes" if self.list_seconds <= reference + outage + SLACK else "no"

    def markdown(self, reference: float | None) -> str:
        books, events = self.books, ", ".join(f"{n}: {jobs}" for n, jobs in sorted(self.books.events.items()))
        lost = books.unfinished + books.lost
        return (
            f"| {self.fault} | {_seconds(self.list_seconds)} | {self.fault_seconds:.1f} s | "
            f"{_seconds(self.after_fault)} | {self.batches} | {lost} / {books.doubled} | "
            f"{'exact' if books.charges_exact else 'WRONG'} | {events} | {self.changed} | "
            f"{self.within(reference, self.fault_seconds)} |"
        )


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f} s"


def run(
    lab: MailLab, fault: Fault, args: argparse.Namespace, reference: dict[int, str] | None
) -> tuple[Run, dict[int, str]]:
    """One scenario on fresh stores and processes; its figures and the list's verdicts."""
    lab.reset()
    with running_service(lab, persistent_redis=fault.persistent_redis) as service:
        emails = fault_load.the_list(args.list, args.domains)
        started = time.monotonic()
        list_id = fault_load.upload(service, emails)
        _wait_until(service, list_id, args.list // 5)
        clients = [
            fault_load.BatchClient(fault_load.a_batch(i, args.batch_size, args.domains))
            for i in range(args.batches)
        ]
        for client in clients:
            client.start(service)
        _wait_batches_running(service, args.batches)
        fault_started = time.monotonic()
        fault.make(service, args.outage)
        fault_ended = time.monotonic()
        done = fault_load.wait_finished(service, list_id, started + fault_load.PATIENCE)
        for client in clients:
            client.join(fault_load.PATIENCE)
        _wait_events(service, 1 + args.batches)
        books = fault_load.books(service)
        found = fault_load.verdicts(service, list_id)
    return Run(
        fault.name,
        None if done is None else done - started,
        fault_ended - fault_started,
        None if done is None else done - fault_ended,
        _answers(clients),
        books,
        _changed(reference, found),
    ), found


def _wait_until(service: Service, list_id: str, processed: int) -> None:
    give_up = time.monotonic() + fault_load.PATIENCE
    while time.monotonic() < give_up:
        seen = fault_load.progress(service, list_id)
        if seen is not None and (seen["processed"] >= processed or seen["status"] in fault_load.FINISHED):
            return
        time.sleep(0.1)
    raise RuntimeError("the list never got going")


def _wait_batches_running(service: Service, count: int) -> None:
    """Until every batch is stored and being probed (its client waits for it), or 5 s passed: the fault
    must land in the middle of the list whatever the batches do."""
    give_up = time.monotonic() + 5
    statement = (
        "SELECT count(*) FROM validation_jobs WHERE kind = 'batch' AND status IN ('running', 'completed')"
    )
    while time.monotonic() < give_up and service.sql(statement)[0][0] < count:
        time.sleep(0.05)


def _wait_events(service: Service, jobs: int, seconds: float = 60.0) -> None:
    """Until the receiver has an event for every job (deliveries run after completion), or ``seconds``."""
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        ids = {e["data"]["batchId"] for e in service.receiver.events() if e["type"] == "batch.completed"}
        if len(ids) >= jobs:
            time.sleep(2.0)  # a duplicate would follow its original within moments
            return
        time.sleep(0.2)


def _answers(clients: list[fault_load.BatchClient]) -> str:
    """The final status each client's POST got, and how many clients' batches never finished."""
    finals = [client.answers[-1] if client.answers else 0 for client in clients]
    shown = ", ".join(f"{finals.count(code)} x {code}" for code in sorted(set(finals)))
    open_ = sum(1 for client in clients if client.finished_at is None)
    return shown + (f", {open_} never finished" if open_ else "")


def _changed(reference: dict[int, str] | None, found: dict[int, str]) -> int:
    if reference is None:
        return 0
    return sum(
        1
        for position, verdict in found.items()
        if "unknown" not in (verdict, reference.get(position, "unknown")) and verdict != reference[position]
    )


def main(argv: list[str] | None = None) -> list[Run]:
    args = parse(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so every process and store is cleaned up
    with MailLab(bench_world(args.domains, servers=args.domains), latency=args.latency) as lab:
        print(
            f"lab: {args.domains} domains, one MX each, {args.latency * 1000:.0f} ms per reply; a list of "
            f"{args.list:,} addresses, {args.batches} batches of {args.batch_size} waiting; "
            f"outage {args.outage:.0f} s\n"
        )
        print(HEADER)
        runs, reference_time, reference = [], None, None
        for name in args.scenarios:
            figures, found = run(lab, FAULTS[name], args, reference)
            if name == "none":
                reference_time, reference = figures.list_seconds, found
            runs.append(figures)
            print(figures.markdown(reference_time), flush=True)
    return runs


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--scenarios", type=_scenarios, default=list(FAULTS), help="comma-separated, in order"
    )
    parser.add_argument("--list", type=int, default=5000, help="addresses in the bulk list")
    parser.add_argument("--batches", type=int, default=20, help="batches waiting during the fault")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--domains", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per SMTP reply")
    parser.add_argument("--outage", type=float, default=20.0, help="seconds Postgres stays down")
    return parser.parse_args(argv)


def _scenarios(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in FAULTS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown scenarios {unknown}; choose from {', '.join(FAULTS)}")
    return names


if __name__ == "__main__":
    main()
