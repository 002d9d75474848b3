"""A list's round trip, upload -> completed -> CSV download, end to end: real gunicorn, a real Celery
worker, Postgres, Redis and the mail lab (200 domains).

Two lists of the same ``--rows`` (default 10,000) in the same run:

- baseline: one column of distinct, clean addresses (what a list looked like to the service before rows
  kept their cells);
- messy: what a CRM export looks like: five columns with the address in the third, 5% blank lines, 20%
  duplicate rows (in another case, padded with blanks, NBSP or a BOM), cells starting with ``=``/``+``/``-``.

For each: seconds from the upload's first byte to the download's last, and whether every row came back in
order with its own cells (checked cell by cell). Then the messy list's ``dryRun=true``. quickMode by
default (the list machinery, not SMTP, is what is measured); ``--smtp`` probes the lab's mailboxes too.

Run: ``.venv/bin/python -m bench.list_roundtrip`` (prints Markdown for docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import time
from contextlib import ExitStack

import requests

from bench.validation_workers import (
    _account,
    _celery_worker,
    _get,
    _gunicorn,
    _open_database,
    bench_environment,
    process,
)
from maillab import MailLab
from maillab.world import bench_domain, bench_world

PADDING = (" ", "\t", "\u00a0", "\ufeff", "")
FORMULAS = ("=1+1", "+33 1 23 45", "-5", "@home")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--smtp", action="store_true", help="probe mailboxes (default: quickMode)")
    args = parser.parse_args()
    with MailLab(bench_world(200), latency=0.0) as lab, ExitStack() as stack:
        env = stack.enter_context(bench_environment(lab))
        _open_database(env)
        key = _account(env)
        stack.enter_context(process(env, _gunicorn("web:create_app()"), ready="Booting worker"))
        stack.enter_context(process(env, _celery_worker(), ready=" ready."))
        base = f"http://127.0.0.1:{env['PORT']}"
        quick = not args.smtp
        print(f"{args.rows:,} rows per list, {'quickMode' if quick else 'with SMTP'}; 2 cores shared\n")
        print(
            "| list | upload -> download | upload / validation / download (s) | rows back intact | charged |"
        )
        print("|---|---:|---:|---:|---:|")
        baseline = round_trip(base, key, "baseline", plain_list(args.rows), quick)
        messy_rows = messy_list(args.rows)
        messy = round_trip(base, key, "messy", messy_rows, quick)
        print(f"\nmessy / baseline, upload -> download: {messy[0] / baseline[0]:.2f}x; ", end="")
        print(f"list handling alone (upload + download): {messy[1] / baseline[1]:.2f}x\n")
        dry_run(base, key, messy_rows)


def address(i: int) -> str:
    return f"user{(i // 200) % 50:02d}.{i // 10_000}@{bench_domain(i % 200)}"


def plain_list(rows: int) -> list[list[str]]:
    return [["email"], *([address(i)] for i in range(rows))]


def messy_list(rows: int) -> list[list[str]]:
    """Seeded, so every run measures the same list."""
    pick = random.Random(12)
    table = [["id", "name", "Email", "notes", "city"]]
    for i in range(rows):
        if pick.random() < 0.05:
            table.append([])
            continue
        text = address(pick.randrange(i)) if i and pick.random() < 0.2 else address(i)
        text = pick.choice(PADDING) + (text.upper() if pick.random() < 0.5 else text) + pick.choice(PADDING)
        table.append([str(i), f"Person {i}", text, pick.choice(FORMULAS), "Paris"])
    return table


def as_csv(table: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(table)
    return buffer.getvalue().encode()


def round_trip(base: str, key: str, name: str, table: list[list[str]], quick: bool) -> tuple[float, float]:
    """Seconds from upload to downloaded, and of those the upload's and the download's (the list
    handling; the validation between them is the workers' and varies with the machine's load)."""
    headers = {"X-API-Key": key, "Content-Type": "text/csv"}
    params = {"quickMode": "true" if quick else "false"}
    started = time.perf_counter()
    job = requests.post(f"{base}/bulk/jobs", data=as_csv(table), headers=headers, params=params, timeout=600)
    uploaded = time.perf_counter()
    path = f"/bulk/jobs/{job.json()['id']}"
    while _get(base, key, path)["status"] not in ("completed", "failed", "cancelled"):
        time.sleep(0.2)
    finished = time.perf_counter()
    text = requests.get(f"{base}{path}/download", headers=headers, timeout=600).text
    downloaded = time.perf_counter()
    seconds = downloaded - started
    steps = f"{uploaded - started:.2f} / {finished - uploaded:.2f} / {downloaded - finished:.2f}"
    back = list(csv.reader(io.StringIO(text)))[1:]
    width = len(table[0])
    intact = sum(
        row[:width] == [_safe(cell) for cell in sent] + [""] * (width - len(sent))
        for row, sent in zip(back, table[1:], strict=False)
    )
    used = _get(base, key, "/api/usage")["quota"]["used"]
    print(f"| {name} | {seconds:.2f} s | {steps} | {intact:,}/{len(table) - 1:,} | {used:,} so far |")
    return seconds, (uploaded - started) + (downloaded - finished)


def _safe(cell: str) -> str:
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


def dry_run(base: str, key: str, table: list[list[str]]) -> None:
    headers = {"X-API-Key": key, "Content-Type": "text/csv"}
    seconds = []
    for _ in range(3):
        started = time.perf_counter()
        response = requests.post(
            f"{base}/bulk/jobs", data=as_csv(table), headers=headers, params={"dryRun": "true"}, timeout=600
        )
        seconds.append(time.perf_counter() - started)
    summary = response.json()
    print(f"dryRun of the messy list, 3 runs: {' / '.join(f'{s:.2f}' for s in seconds)} s; ", end="")
    print(
        f"{summary['rows']:,} rows, {summary['blankRows']:,} blank, "
        f"{summary['duplicates']:,} duplicates, {summary['distinctAddresses']:,} distinct, "
        f"{summary['syntaxFailures']:,} syntax failures, {summary['distinctDomains']} domains; "
        f"would charge {summary['cost']['validations']:,}\n"
    )


if __name__ == "__main__":
    main()
