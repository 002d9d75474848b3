"""The lab's corpus of tricky servers through ``POST /validate/batch``: the target is that a batch answers
in at most the slowest healthy server's session time plus 2 s; nothing waits for a greylisting or 421
server beyond the sync wait.

Real processes: gunicorn (``gunicorn.conf.py``, one web process), one Celery worker (gevent) and beat,
Postgres, Redis, and the mail lab's standard world with every SMTP reply delayed by ``--latency`` (0.1 s;
``slow.test`` answers after 1.5 s). The engine's timeouts are its defaults.

In the same run:
(1) baseline: every domain of the corpus probed alone by the engine in this process, all at once; the
    slowest *healthy* domain (no temporary failure among its answers) sets the target;
(2) the batch as clients send it (``retryTemporary`` off, the batch default): wall time of the 200;
(3) the same batch with ``retryTemporary``: wall time of its 200 (interim answers), then the time until
    the results URL shows it completed, i.e. what every batch waited before this change (with
    ``SMTP_GREYLIST_RETRY_AFTER=5`` here instead of 300 s, so the run ends in under a minute).

Tarpits and black holes are left out: they cost the engine's connect/banner timeouts (5 s, 15 s), which
bound them by design and are not what this target is about.
Run: ``.venv/bin/python -m bench.tricky_batch`` (prints Markdown for docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

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
from maillab.world import standard_world
from verifier.dns import MailResolver
from verifier.smtp import probe_domain_group

# Every scripted server that answers (tarpit, blackhole: timeouts by design, see above), with addresses
# that exercise its script: existing, unknown, and its special mailboxes.
CORPUS: dict[str, tuple[str, ...]] = {
    "mailbox.test": ("alice", "bob", "zed", "info"),
    "catchall.test": ("alice", "anyone"),
    "full.test": ("alice", "full", "quota"),
    "disabled.test": ("alice", "gone"),
    "greylist.test": ("alice", "bob", "carol"),
    "slow.test": ("alice", "zed"),
    "busy.test": ("alice", "bob"),
    "tls.test": ("alice", "zed"),
    "tls-required.test": ("alice",),
    "helo-only.test": ("alice",),
    "utf8.test": ("alice", "jörg"),
    "spamhaus.test": ("alice",),
    "proofpoint.test": ("alice",),
    "reverse-hostname.test": ("alice",),
    "outlook.test": ("alice", "zed"),
    "m365.test": ("alice", "zed"),
    "yahoo.test": ("alice",),
    "too-many.test": ("alice", "bob", "carol", "zed"),
    "inconclusive.test": ("alice", "zed"),
    "no-pipelining.test": ("alice", "zed"),
    "hangup.test": ("alice", "bob"),
    "drop-421.test": ("alice", "bob", "carol"),
    "accounts.test": ("alice", "suspended", "nosuch"),
    "banned-ip.test": ("alice",),
    "policy.test": ("alice",),
    "dead.test": ("alice",),
    "backup.test": ("alice",),
}
BENCH_ENV = {
    "BATCH_SYNC_WAIT_SECONDS": "25",
    "SMTP_GREYLIST_RETRY_AFTER": "5",
    "JOB_SWEEP_SECONDS": "1",
    "JOB_DEADLINE_SECONDS": "900",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()
    emails = [f"{local}@{domain}" for domain, locals_ in CORPUS.items() for local in locals_]
    with MailLab(standard_world(), latency=args.latency) as lab, ExitStack() as stack:
        env = stack.enter_context(bench_environment(lab)) | BENCH_ENV
        _open_database(env)
        key = _account(env)
        sessions = baseline(lab)
        healthy = {domain: seconds for domain, (seconds, temporary) in sessions.items() if not temporary}
        stack.enter_context(process(env, _gunicorn("web:create_app()"), ready="Booting worker"))
        stack.enter_context(process(env, _celery_worker(), ready=" ready."))
        stack.enter_context(process(env, _beat(), ready="beat: Starting"))
        base = f"http://127.0.0.1:{env['PORT']}"
        lab.reset()
        plain = timed_batch(base, key, emails, retry=False)
        lab.reset()
        retried = timed_batch(base, key, emails, retry=True)
        settled = until_completed(base, key, retried["body"]["batchId"], retried["started"])
        report(args.latency, emails, sessions, healthy, plain, retried, settled)


def baseline(lab: MailLab) -> dict[str, tuple[float, bool]]:
    """Each domain probed alone, all at once: (session seconds, any temporary failure) per domain."""
    config = lab.engine_config(
        smtp_timeout=10.0, smtp_connect_timeout=5.0, smtp_banner_timeout=15.0, smtp_deadline=60.0
    )
    lab.reset()

    def one(domain: str) -> tuple[str, tuple[float, bool]]:
        started = time.perf_counter()
        mail_domain = MailResolver(config).resolve(domain)
        addresses = [f"{local}@{domain}" for local in CORPUS[domain]]
        probed = probe_domain_group(mail_domain, addresses, config=config)
        temporary = any(item.retry_after is not None for item in probed.results)
        return domain, (time.perf_counter() - started, temporary)

    with ThreadPoolExecutor(len(CORPUS)) as pool:
        return dict(pool.map(one, CORPUS))


def timed_batch(base: str, key: str, emails: list[str], *, retry: bool) -> dict[str, Any]:
    body = {"emails": emails, "options": {"retryTemporary": retry}}
    started = time.perf_counter()
    response = requests.post(f"{base}/validate/batch", json=body, headers={"X-API-Key": key}, timeout=600)
    seconds = time.perf_counter() - started
    return {"status": response.status_code, "body": response.json(), "seconds": seconds, "started": started}


def until_completed(base: str, key: str, batch_id: str, started: float) -> float:
    while _get(base, key, f"/batches/{batch_id}/results")["status"] != "completed":
        if time.perf_counter() - started > 600:
            raise RuntimeError("the retried batch did not complete within 10 minutes")
        time.sleep(0.25)
    return time.perf_counter() - started


def temporary_unknowns(body: dict[str, Any]) -> int:
    smtp = [result["checks"].get("smtp", {}) for result in body["results"]]
    return sum(1 for check in smtp if check.get("metadata", {}).get("retryAfter") is not None)


def report(
    latency: float,
    emails: list[str],
    sessions: dict[str, tuple[float, bool]],
    healthy: dict[str, float],
    plain: dict[str, Any],
    retried: dict[str, Any],
    settled: float,
) -> None:
    slowest = max(healthy, key=lambda domain: healthy[domain])
    target = healthy[slowest] + 2.0
    temporary = sorted(domain for domain, (_, flagged) in sessions.items() if flagged)
    print(f"lab latency {latency * 1000:.0f} ms per SMTP reply; {len(emails)} addresses over", end=" ")
    print(f"{len(CORPUS)} domains; temporarily failing: {', '.join(temporary)}\n")
    print("| run | answer | wall time (s) | / slowest healthy session | unknown with retryAfter |")
    print("|---|---|---:|---:|---:|")
    print(f"| baseline: slowest healthy domain alone ({slowest}) | - | {healthy[slowest]:.2f} | 1.00 | - |")
    for name, run in (("batch, retryTemporary off (default)", plain), ("batch, retryTemporary on", retried)):
        ratio = run["seconds"] / healthy[slowest]
        unknown = temporary_unknowns(run["body"])
        print(f"| {name} | {run['status']} | {run['seconds']:.2f} | {ratio:.2f} | {unknown} |")
    print(
        f"| retried batch until its results URL says completed | - | {settled:.2f} | "
        f"{settled / healthy[slowest]:.2f} | - |"
    )
    verdict = "met" if max(plain["seconds"], retried["seconds"]) <= target else "NOT met"
    print(f"\ntarget (slowest healthy session + 2 s = {target:.2f} s): {verdict}")


def _beat() -> list[str]:
    schedule = Path(tempfile.mkdtemp(prefix="vm-bench-beat-")) / "schedule"
    return [sys.executable, "-m", "celery", "--app", "workers", "beat", "--schedule", str(schedule)]


if __name__ == "__main__":
    main()
