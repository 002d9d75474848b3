"""Two figures of the suppression list on the real stack: gunicorn as the Procfile runs it (one
worker, its threads), Postgres, Redis, the mail lab's DNS.

1. A suppressed address answers as fast as a quickMode call: ``--pairs`` pairs of ``POST /validate`` with
   quickMode, one for a suppressed address and one for a deliverable address of a lab domain (its DNS
   answer cached by a first call, as in steady use), in a random order within each pair so load on the
   shared machine falls on both alike. Median and p90 of each, and the ratio of the medians.
2. An SES burst is ingested without loss: ``--burst`` SES bounce notifications, each a distinct address,
   signed by SNS's certificate (a test CA's, trusted through SNS_CERTIFICATE_DIR, as in the tests), posted
   by ``--senders`` concurrent senders as SNS delivers a burst; the time from the first post to the last
   answer, every answer's status, and how many addresses the list then holds.

Run: ``.venv/bin/python -m bench.suppression`` (prints Markdown for docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import requests

from bench.validation_workers import _account, _gunicorn, _open_database, bench_environment, process
from maillab import MailLab
from maillab.world import standard_world
from tests.suppression.signers import SnsSigner, ses_bounce, sns_notification

SUPPRESSED = "closed.account@yahoo.test"
DELIVERABLE = "alice@mailbox.test"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--burst", type=int, default=1000)
    parser.add_argument("--senders", type=int, default=8)
    args = parser.parse_args()
    with ExitStack() as stack:
        env = stack.enter_context(bench_environment(stack.enter_context(MailLab(standard_world()))))
        certificates = Path(tempfile.mkdtemp(prefix="vm-sns-"))
        signer = SnsSigner.into(certificates)
        env |= {"SNS_CERTIFICATE_DIR": str(certificates), "WEB_THREADS": str(args.senders)}
        _open_database(env)
        key = _account(env)
        stack.enter_context(process(env, _gunicorn("web:create_app()"), ready="Booting worker"))
        base = f"http://127.0.0.1:{env['PORT']}"
        _wait_ready(base)
        print(_latency_table(_latency(base, key, args.pairs), args.pairs))
        print()
        print(_burst_table(*_burst(base, key, signer, args.burst, args.senders), args.burst, args.senders))


def _wait_ready(base: str) -> None:
    for _ in range(100):
        try:
            if requests.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)


def _latency(base: str, key: str, pairs: int) -> dict[str, list[float]]:
    session = requests.Session()
    headers = {"X-API-Key": key}
    added = session.post(f"{base}/suppression", json={"email": SUPPRESSED}, headers=headers, timeout=10)
    assert added.status_code == 201, added.text
    timings: dict[str, list[float]] = {"suppressed": [], "quickMode": []}
    emails = {"suppressed": SUPPRESSED, "quickMode": DELIVERABLE}
    for email in emails.values():  # warm-up, not counted: the connection, the DNS cache, the key snapshot
        _call(session, base, headers, email)
    for _ in range(pairs):
        for name in random.sample(list(emails), 2):
            started = time.perf_counter()
            body = _call(session, base, headers, emails[name])
            timings[name].append((time.perf_counter() - started) * 1000)
            assert (body["metadata"].get("reason") == "suppressed") == (name == "suppressed"), body
    return timings


def _call(session: requests.Session, base: str, headers: dict[str, str], email: str) -> dict[str, Any]:
    body = {"email": email, "options": {"quickMode": True}}
    answer = session.post(f"{base}/validate", json=body, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _latency_table(timings: dict[str, list[float]], pairs: int) -> str:
    def p90(values: list[float]) -> float:
        return statistics.quantiles(values, n=10)[-1]

    lines = [
        f"{pairs} pairs of `POST /validate` (quickMode), order shuffled within each pair:",
        "",
        "| address | median (ms) | p90 (ms) | mean (ms) |",
        "|---|---:|---:|---:|",
    ]
    for name, values in timings.items():
        median, mean = statistics.median(values), statistics.fmean(values)
        lines.append(f"| {name} | {median:.2f} | {p90(values):.2f} | {mean:.2f} |")
    ratio = statistics.median(timings["suppressed"]) / statistics.median(timings["quickMode"])
    lines += ["", f"suppressed / quickMode, medians: {ratio:.2f}x"]
    return "\n".join(lines)


def _burst(base: str, key: str, signer: SnsSigner, count: int, senders: int) -> tuple[float, list[int], int]:
    headers = {"X-API-Key": key}
    source = requests.post(
        f"{base}/suppression/sources", json={"kind": "ses", "name": "SES burst"}, headers=headers, timeout=10
    ).json()
    messages = [
        json.dumps(signer.sign(sns_notification(ses_bounce(f"burst{n:05d}@example.com")), 1 + n % 2))
        for n in range(count)
    ]
    url, before = f"{base}/inbound/{source['id']}", _listed(base, headers)
    auth = ("inbound", source["secret"])

    def post(message: str) -> int:
        answer = requests.post(
            url,
            data=message,
            auth=auth,
            headers={"Content-Type": "text/plain"},
            timeout=60,  # as SNS
        )
        return answer.status_code

    started = time.perf_counter()
    with ThreadPoolExecutor(senders) as pool:
        statuses = list(pool.map(post, messages))
    elapsed = time.perf_counter() - started
    return elapsed, statuses, _listed(base, headers) - before


def _listed(base: str, headers: dict[str, str]) -> int:
    """Addresses on the list, counted by paging through the API as a client would."""
    count, after = 0, None
    while True:
        params = {"limit": 100, **({"startingAfter": after} if after else {})}
        page = requests.get(f"{base}/suppression", params=params, headers=headers, timeout=30).json()
        count += len(page["data"])
        if not page["hasMore"]:
            return count
        after = page["data"][-1]["id"]


def _burst_table(elapsed: float, statuses: list[int], listed: int, count: int, senders: int) -> str:
    ok = statuses.count(200)
    return "\n".join(
        [
            (
                f"SES burst: {count} signed bounce notifications (SignatureVersion 1 and 2 alternating), "
                f"{senders} concurrent senders:"
            ),
            "",
            "| notifications | answered 200 | added to the list | wall time (s) | per second |",
            "|---:|---:|---:|---:|---:|",
            f"| {count} | {ok} | {listed} | {elapsed:.2f} | {count / elapsed:.0f} |",
        ]
    )


if __name__ == "__main__":
    main()
