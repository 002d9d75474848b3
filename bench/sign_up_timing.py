"""Does the dashboard's sign-up take as long for an address that has an account as for one that does not?

The real stack: a fresh database, gunicorn as the Procfile runs it (one worker), the form as a browser posts
it (its CSRF token first). Sign-ups of new addresses and of addresses with a verified account alternate, in
a random order within each pair, so load on the shared machine falls on both alike; each address is used
once (a second sign-up within a minute sends nothing and returns at once, for both alike).

Run: ``.venv/bin/python -m bench.sign_up_timing --pairs 30``; prints a Markdown table of the POST's latency.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import statistics
import time
from contextlib import ExitStack

import requests

from bench.validation_workers import _gunicorn, _open_database, bench_environment, process
from maillab import MailLab
from maillab.world import standard_world
from models.accounts import Tier
from services import accounts
from services.users import signup

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
PASSWORD = "correct horse battery staple"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30)
    args = parser.parse_args()
    with ExitStack() as stack:
        env = stack.enter_context(bench_environment(stack.enter_context(MailLab(standard_world()))))
        env["SIGN_UPS_PER_HOUR"] = str(10 * args.pairs + 10)
        _open_database(env)
        os.environ.update(env)  # settings are read at first use: the owners below go to the bench's database
        existing = [_owner() for _ in range(args.pairs + 1)]
        stack.enter_context(process(env, _gunicorn("web:create_app()"), ready="Booting worker"))
        timings = _measure(f"http://127.0.0.1:{env['PORT']}", existing, args.pairs)
    print(_table(timings, args.pairs))


def _owner() -> str:
    email = f"owner-{secrets.token_hex(4)}@example.com"
    signup.add_owner(accounts.open_account(email, Tier.PRO).account.id, PASSWORD)
    return email


def _measure(base: str, existing: list[str], pairs: int) -> dict[str, list[float]]:
    browser = requests.Session()
    timings: dict[str, list[float]] = {"new address": [], "existing account": []}
    _sign_up(browser, base, existing.pop())  # warms the worker up; not counted
    for _ in range(pairs):
        pair = [
            ("new address", f"new-{secrets.token_hex(4)}@example.com"),
            ("existing account", existing.pop()),
        ]
        random.shuffle(pair)
        for kind, email in pair:
            timings[kind].append(_sign_up(browser, base, email))
    return timings


def _sign_up(browser: requests.Session, base: str, email: str) -> float:
    token = CSRF.search(browser.get(f"{base}/dashboard/sign-up", timeout=30).text)
    assert token is not None
    form = {"csrf_token": token[1], "email": email, "tier": "pro", "name": ""}
    started = time.perf_counter()
    answer = browser.post(f"{base}/dashboard/sign-up", data=form, timeout=30)
    elapsed = time.perf_counter() - started
    assert answer.status_code == 200, answer.text[:500]
    return elapsed * 1000


def _table(timings: dict[str, list[float]], pairs: int) -> str:
    rows = [
        f"Sign-up POST latency, {pairs} of each, alternating (ms)",
        "",
        "| address | median | p10 | p90 | mean |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind, values in timings.items():
        deciles = statistics.quantiles(values, n=10)
        row = (statistics.median(values), deciles[0], deciles[-1], statistics.fmean(values))
        rows.append(f"| {kind} | " + " | ".join(f"{value:.0f}" for value in row) + " |")
    new, old = (statistics.median(values) for values in timings.values())
    rows.append(f"\nmedian difference (new - existing): {new - old:+.1f} ms")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
