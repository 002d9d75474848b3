"""Validation through workers, end to end: real gunicorn, a real Celery worker, Postgres, Redis and the
mail lab answering every SMTP command after ``--latency`` seconds (default 0.1).

(a) a batch of 100 addresses over 10 domains via HTTP (one web process, one worker process) against a
    naive sequential prober opening one session per address, in the same run;
(b) a bulk list of 10,000 addresses over 200 domains: addresses per second and the worker's peak RSS;
    then the web process's peak RSS while a 1,000,000-address upload streams in (cancelled at once);
(c) quickMode ``POST /validate`` against a bare Flask endpoint behind the same gunicorn settings
    (``gunicorn.conf.py``, ``--web-workers`` processes), same client (``bench.http_load``: 16 keep-alive
    connections, its own process), in alternating rounds, each round on a fresh account (one round of
    3,000 requests in a few seconds is most of an Enterprise Plus minute), after a warm-up round:
    requests/s, p50, p99, and the CPU each request cost per process group (``bench.cpu_account``).

Everything runs on a database and Redis prefix of its own, deleted at the end.
Run: ``.venv/bin/python -m bench.validation_workers`` (prints Markdown for docs/benchmarks.md);
``--only-quick`` runs (c) alone (no Celery worker is started; quickMode never uses one).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psycopg2
import requests

from bench import cpu_account
from bench.smtp_sessions import naive
from maillab import MailLab
from maillab.world import bench_domain, bench_world

ROOT = Path(__file__).resolve().parents[1]
BASE_DB = "postgresql://postgres@127.0.0.1:5432/postgres"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--bulk", type=int, default=10_000)
    parser.add_argument("--big-upload", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=3_000)
    parser.add_argument("--only-quick", action="store_true", help="run only part (c), without a worker")
    parser.add_argument(
        "--rounds", type=int, default=3, help="part (c): rounds of each endpoint, alternating"
    )
    parser.add_argument("--web-workers", type=int, default=2, help="part (c): gunicorn worker processes")
    args = parser.parse_args()
    with MailLab(bench_world(200), latency=args.latency) as lab, ExitStack() as stack:
        env = stack.enter_context(bench_environment(lab))
        _open_database(env)
        key = _account(env)
        print(f"lab latency {args.latency * 1000:.0f} ms per SMTP reply; 2 cores shared by everything\n")
        quick_keys = [_account(env) for _ in range(args.rounds + 1)]  # the first warms the servers up
        if args.only_quick:
            quick(env, quick_keys, args.requests, args.web_workers)
            return
        web = stack.enter_context(process(env, _gunicorn("web:create_app()"), ready="Booting worker"))
        base = f"http://127.0.0.1:{env['PORT']}"
        worker = stack.enter_context(process(env, _celery_worker(), ready=" ready."))
        batch(base, key, lab)
        bulk(base, key, args.bulk, worker.pid)
        big_upload(base, key, args.big_upload, web)
        quick(env, quick_keys, args.requests, args.web_workers)


@contextmanager
def bench_environment(lab: MailLab) -> Iterator[dict[str, str]]:
    name = f"verimail_bench_{secrets.token_hex(4)}"
    env = {
        **os.environ,
        **lab.env(),
        "DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/{name}",
        "REDIS_KEY_PREFIX": f"vmbench_{secrets.token_hex(4)}:",
        "ALLOW_TEST_DOMAINS": "true",
        "PORT": str(_free_port()),
        "WEB_CONCURRENCY": "1",
        "BATCH_SYNC_WAIT_SECONDS": "300",
        "SMTP_HELO_HOST": "prober.verimail.test",
        "SMTP_MAIL_FROM": "probe@verimail.test",
        "BULK_MAX_ADDRESSES": "2000000",
    }
    try:
        yield env
    finally:
        _sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _forget_keys(env["REDIS_KEY_PREFIX"])


def _open_database(env: dict[str, str]) -> None:
    _sql(f'CREATE DATABASE "{env["DATABASE_URL"].rsplit("/", 1)[1]}"')
    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", "models/alembic.ini", "upgrade", "head"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )


def _account(env: dict[str, str]) -> str:
    code = (
        "from services.accounts import open_account; from services.usage.plans import Tier; "
        "print(open_account('bench@example.com', Tier.ENTERPRISE_PLUS).admin_key.secret)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
    return out.stdout.decode().strip().splitlines()[-1]


def _gunicorn(app: str) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", app]


def _celery_worker(
    index: int = 0, queues: str = "default,probes", pool: str = "gevent", greenlets: str | None = None
) -> list[str]:
    """A Celery worker as the Procfile runs one (``probes``: gevent, ``worker``: threads)."""
    greenlets = greenlets or os.environ.get("PROBE_CONCURRENCY", "500")
    concurrency = greenlets if pool == "gevent" else "8"
    return [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "workers",
        "worker",
        "--queues",
        queues,
        "--pool",
        pool,
        "--concurrency",
        concurrency,  # the Procfile's defaults
        "--without-gossip",
        "--without-mingle",
        "--loglevel",
        "WARNING",
        "--hostname",
        f"bench{os.getpid()}-{index}@%h",
    ]


@contextmanager
def process(env: dict[str, str], command: list[str], ready: str) -> Iterator[subprocess.Popen[bytes]]:
    log = Path(tempfile.mkdtemp(prefix="vm-bench-")) / "out.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    give_up = time.monotonic() + 60
    while ready not in log.read_text(errors="replace") and time.monotonic() < give_up:
        if proc.poll() is not None:
            raise RuntimeError(log.read_text())
        time.sleep(0.2)
    if "celery" in " ".join(command):
        time.sleep(1.0)  # "ready" is logged at WARNING only by some versions; give it a moment
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def batch(base: str, key: str, lab: MailLab) -> None:
    emails = [f"user{j:02d}@{bench_domain(i)}" for i in range(10) for j in range(10)]
    started = time.perf_counter()
    body = _post(base, key, "/validate/batch", {"emails": emails})
    service = time.perf_counter() - started
    from verifier.dns import MailResolver  # noqa: PLC0415 - the naive prober runs in this process

    config = lab.engine_config(smtp_timeout=10.0, smtp_deadline=120.0, smtp_banner_timeout=10.0)
    resolver = MailResolver(config)
    groups = [(resolver.resolve(bench_domain(i)), emails[i * 10 : i * 10 + 10]) for i in range(10)]
    started = time.perf_counter()
    probes = naive(groups, config)
    baseline = time.perf_counter() - started
    print("### (a) batch of 100 addresses over 10 domains\n")
    print("| run | wall time | sessions | valid |\n|---|---|---|---|")
    print(f"| HTTP batch: 1 gunicorn + 1 gevent worker | {service:.2f} s | 10 groups | {body['valid']} |")
    print(
        f"| naive sequential, one session per address | {baseline:.2f} s | {len(probes)} | "
        f"{sum(p.results[0].verdict.value == 'deliverable' for p in probes)} |"
    )
    print(f"\nspeed-up: {baseline / service:.1f}x\n")


def bulk(base: str, key: str, count: int, worker_pid: int) -> None:
    rows = [f"user{(i // 200) % 50:02d}@{bench_domain(i % 200)}" for i in range(count)]
    started = time.perf_counter()
    job = _upload(base, key, "\n".join(["email", *rows]).encode())
    while (status := _get(base, key, f"/bulk/jobs/{job['id']}"))["status"] not in ("completed", "failed"):
        time.sleep(0.5)
    seconds = time.perf_counter() - started
    print(f"### (b) bulk list of {count:,} addresses over 200 domains\n")
    print(
        f"- {count / seconds:,.0f} addresses/second end to end ({seconds:.1f} s from upload to completed); "
        f"processed {status['processed']:,}, valid {status['counts']['valid']:,}"
    )
    print(f"- worker peak RSS (VmHWM): {_peak_rss_mib(worker_pid):.0f} MiB\n")


def big_upload(base: str, key: str, count: int, web: subprocess.Popen[bytes]) -> None:
    children = _children(web.pid)
    before = max(_peak_rss_mib(pid) for pid in children)
    body = "".join(f"person{i:07d}@example.com\n" for i in range(count)).encode()
    started = time.perf_counter()
    job = _upload(base, key, body, quick=True)
    seconds = time.perf_counter() - started
    requests.post(f"{base}/bulk/jobs/{job['id']}/cancel", headers={"X-API-Key": key}, timeout=60)
    after = max(_peak_rss_mib(pid) for pid in children)
    print(f"### (b') streaming upload of {count:,} addresses ({len(body) / 2**20:.0f} MiB body)\n")
    print(f"- stored in {seconds:.1f} s ({count / seconds:,.0f} rows/s with COPY)")
    print(f"- web worker peak RSS {before:.0f} MiB before, {after:.0f} MiB after (never held whole)\n")


def quick(env: dict[str, str], keys: list[str], total: int, workers: int) -> None:
    """Alternating rounds after a warm-up round on ``keys[0]`` (connections opened, statements prepared,
    snapshots loaded: what a serving process has), each round with the CPU it cost (``bench.cpu_account``)."""
    body = json.dumps({"email": "user01@bench-001.test", "options": {"quickMode": True}})
    ours_env = {**env, "PORT": str(_free_port()), "WEB_CONCURRENCY": str(workers)}
    bare_env = {**ours_env, "PORT": str(_free_port())}
    database = env["DATABASE_URL"].rsplit("/", 1)[1]
    rows: list[tuple[dict[str, Any], dict[str, Any]]] = []
    with (
        process(ours_env, _gunicorn("web:create_app()"), ready="Booting worker") as ours_server,
        process(bare_env, _gunicorn("bench.bare_app:app"), ready="Booting worker") as bare_server,
    ):
        ours_url = f"http://127.0.0.1:{ours_env['PORT']}/validate"
        bare_url = f"http://127.0.0.1:{bare_env['PORT']}/validate"
        warm, *measured = keys
        _load(ours_url, warm, body, total // 3)
        _load(bare_url, warm, body, total // 3)
        for key in measured:
            ours = _load(ours_url, key, body, total, (ours_server.pid, database))
            bare = _load(bare_url, key, body, total, (bare_server.pid, database))
            rows.append((ours, bare))
    print("### (c) quickMode POST /validate vs a bare Flask endpoint (same gunicorn settings)\n")
    print(f"{workers} gunicorn workers (gthread) each; 16 keep-alive clients; {total:,} requests a round.\n")
    print("| round | endpoint | requests/s | p50 | p99 | bare / ours |")
    print("|---|---|---:|---:|---:|---:|")
    for number, (ours, bare) in enumerate(rows, 1):
        print(f"| {number} | bare Flask | {_figures(bare)} | |")
        print(f"| {number} | /validate quickMode | {_figures(ours)} | {bare['rps'] / ours['rps']:.1f}x |")
    median = statistics.median
    print(
        f"\nmedians: /validate quickMode {median(o['rps'] for o, _ in rows):,.0f} requests/s, "
        f"p99 {median(o['p99_ms'] for o, _ in rows):.1f} ms; "
        f"bare Flask {median(b['rps'] for _, b in rows):,.0f} requests/s; "
        f"bare / ours {median(b['rps'] / o['rps'] for o, b in rows):.1f}x\n"
    )
    _cpu_table(rows)


def _cpu_table(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """CPU per request by process group; 2 cores divided by the total is what this machine could serve
    with nothing else running."""
    print("| round | endpoint | web | Postgres | Redis | client | total | 2 cores / total |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for number, pair in enumerate(rows, 1):
        for name, run in zip(("/validate quickMode", "bare Flask"), pair, strict=True):
            cpu = run["cpu_ms"]
            total = sum(cpu.values())
            cells = " | ".join(f"{cpu[group]:.2f} ms" for group in cpu_account.GROUPS)
            print(f"| {number} | {name} | {cells} | {total:.2f} ms | {2000 / total:,.0f} req/s |")
    print()


def _figures(run: dict[str, Any]) -> str:
    return f"{run['rps']:,.0f} | {run['p50_ms']} ms | {run['p99_ms']} ms"


def _load(url: str, key: str, body: str, total: int, server: tuple[int, str] | None = None) -> dict[str, Any]:
    """``bench.http_load`` in a process of its own; every answer must be a 200. With ``server`` (gunicorn
    master pid, database name) the result has ``cpu_ms``: CPU per request by process group."""
    command = [
        sys.executable,
        "-m",
        "bench.http_load",
        url,
        "--key",
        key,
        "--json",
        body,
        "--requests",
        str(total),
    ]
    before = cpu_account.snapshot(*server) if server else None
    out = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    if set(result["statuses"]) != {"200"}:
        raise RuntimeError(f"{url} answered {result['statuses']}")
    if server and before:
        after = cpu_account.snapshot(*server)
        result["cpu_ms"] = cpu_account.per_request_ms(before, after, result["requests"])
    return result


def _post(base: str, key: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = requests.post(base + path, json=body, headers={"X-API-Key": key}, timeout=600)
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def _get(base: str, key: str, path: str) -> dict[str, Any]:
    return requests.get(base + path, headers={"X-API-Key": key}, timeout=60).json()  # type: ignore[no-any-return]


def _upload(base: str, key: str, body: bytes, quick: bool = False) -> dict[str, Any]:
    params = {"quickMode": "true"} if quick else {}
    headers = {"X-API-Key": key, "Content-Type": "text/csv"}
    response = requests.post(f"{base}/bulk/jobs", data=body, headers=headers, params=params, timeout=600)
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in found] or [pid]


def _free_port() -> int:
    import socket  # noqa: PLC0415

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _sql(statement: str) -> None:
    conn = psycopg2.connect(BASE_DB)
    try:
        conn.autocommit = True
        conn.cursor().execute(statement)
    finally:
        conn.close()


def _forget_keys(prefix: str) -> None:
    import redis  # noqa: PLC0415

    client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])


if __name__ == "__main__":
    main()
