"""A monitored list's re-check against the bulk path, on the same list in the same run.

The lab: ``--domains`` (2,000) domains behind ``--mx`` (8) shared MX addresses, 50 addresses per domain
(80% real), every SMTP reply ``--latency`` (0.1 s) after its command: 100,000 addresses by default. Real
gunicorn, one ``worker`` (default queue, threads) and ``--probe-workers`` ``probes`` processes (gevent), as
the Procfile runs them, on a database and Redis prefix of their own.

1. the list through ``POST /bulk/jobs``, upload to ``completed``;
2. that list kept (``POST /monitored-lists``), made due, and the beat's task (``tasks.monitoring.
   recheck_due_lists``) sent once: the run's job is planned, probed and compared, then ``list.rechecked``.

Rates are distinct addresses over each job's own ``processingTime`` (creation to completion, as clients see
it); the re-check's row adds the run's whole time (start to compared). The ratio is the re-check's rate over
the bulk path's.

Run: ``.venv/bin/python -m bench.recheck`` (``--domains 400`` for 20,000 addresses on a busy machine).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from datetime import datetime
from typing import Any

import psycopg2

from bench.throughput import _gunicorn, _workers, the_list
from bench.validation_workers import (
    ROOT,
    _account,
    _get,
    _open_database,
    _post,
    _upload,
    bench_environment,
    process,
)
from maillab import MailLab
from maillab.world import shared_mx_world


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--domains", type=int, default=2_000)
    parser.add_argument("--mx", type=int, default=8, help="shared MX addresses")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--probe-workers", type=int, default=1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so every process and database is cleaned up
    emails = the_list(args.domains)
    with MailLab(shared_mx_world(args.domains, args.mx), latency=args.latency) as lab, ExitStack() as stack:
        env = stack.enter_context(bench_environment(lab)) | {"WEB_CONCURRENCY": "2"}
        _open_database(env)
        key = _account(env)
        stack.enter_context(process(env, _gunicorn(), ready="Booting worker"))
        for command in _workers(args.probe_workers):
            stack.enter_context(process(env, command, ready=" ready."))
        base = f"http://127.0.0.1:{env['PORT']}"
        print(
            f"lab: {args.domains:,} domains on {args.mx} shared MX addresses, "
            f"{args.latency * 1000:.0f} ms per reply; {len(emails):,} addresses, "
            f"{args.probe_workers} probe worker(s)\n"
        )
        bulk = _finished(base, key, _upload(base, key, "\n".join(["email", *emails]).encode())["id"])
        kept = _post(base, key, "/monitored-lists", {"jobId": bulk["id"], "schedule": "weekly"})
        run = _recheck(env, base, key, kept["id"])
        rerun = _finished(base, key, run["jobId"])
        _report(len(emails), bulk, rerun, run)


def _finished(base: str, key: str, job_id: str) -> dict[str, Any]:
    while (job := _get(base, key, f"/bulk/jobs/{job_id}"))["status"] not in (
        "completed",
        "failed",
        "cancelled",
    ):
        time.sleep(0.5)
    return job


def _recheck(env: dict[str, str], base: str, key: str, list_id: str) -> dict[str, Any]:
    """Make the list due, send the beat's task once, wait for the run to be compared."""
    with psycopg2.connect(env["DATABASE_URL"]) as conn, conn.cursor() as cursor:
        cursor.execute("UPDATE monitored_lists SET next_run_at = now() WHERE public_id = %s", (list_id,))
    command = [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "workers",
        "call",
        "tasks.monitoring.recheck_due_lists",
    ]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    while True:
        runs = _get(base, key, f"/monitored-lists/{list_id}")["runs"]
        if runs and runs[0]["status"] in ("completed", "skipped"):
            return runs[0]  # type: ignore[no-any-return]
        time.sleep(0.5)


def _report(count: int, bulk: dict[str, Any], rerun: dict[str, Any], run: dict[str, Any]) -> None:
    bulk_rate = count / (bulk["processingTime"] / 1000)
    rerun_rate = count / (rerun["processingTime"] / 1000)
    whole = _seconds(run["finishedAt"]) - _seconds(run["createdAt"])
    print("| path | addresses/s | processing time | counts (valid, warning, invalid) |")
    print("|---|---:|---:|---|")
    for name, job, rate in (
        ("bulk list (POST /bulk/jobs)", bulk, bulk_rate),
        ("re-check run 1", rerun, rerun_rate),
    ):
        counts = job["counts"]
        print(
            f"| {name} | {rate:,.0f} | {job['processingTime'] / 1000:.1f} s | "
            f"{counts['valid']:,}, {counts['warning']:,}, {counts['invalid']:,} |"
        )
    print(
        f"\n- re-check / bulk rate: **{rerun_rate / bulk_rate:.2f}**; the run from its start to compared "
        f"(list.rechecked emitted): {whole:.1f} s, {run['total']:,} addresses compared, "
        f"{run['changed']} changed"
    )


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


if __name__ == "__main__":
    main()
