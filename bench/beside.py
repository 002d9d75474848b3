"""A batch of 10 beside a running list (``bench.throughput --beside N``): docs/throughput.md says a batch
waits at most one round per lane behind another account's list, so its time beside the list should stay
near its time alone.

One account uploads a list of ``N`` addresses (``POST /bulk/jobs``); while it runs, another account sends
a synchronous batch of 10 (``POST /validate/batch``) every second, each of real mailboxes (``user40`` to
``user49``, which the list does not hold) at 10 domains of the list. Before the list, 5 batches alone give
the baseline. Printed: the list's rate, then the batches' seconds alone and beside it (median, slowest)
and their wrong verdicts.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections.abc import Callable

from bench.lab_measure import wrong_verdicts
from bench.validation_workers import _get, _post, _upload

BATCH = 10
ALONE = 5


def beside(base: str, list_key: str, batch_key: str, emails: list[str], domains: list[str]) -> str:
    """The Markdown line of one run: ``emails`` as a list of ``list_key``, batches of ``batch_key``."""
    rng = random.Random(26)
    alone = [_batch(base, batch_key, domains, rng)[0] for _ in range(ALONE)]
    started = time.perf_counter()
    job = _upload(base, list_key, "\n".join(["email", *emails]).encode())
    done = threading.Event()
    timings: list[tuple[float, int]] = []
    sender = threading.Thread(
        target=_every_second, args=(done, lambda: timings.append(_batch(base, batch_key, domains, rng)))
    )
    sender.start()
    while _get(base, list_key, f"/bulk/jobs/{job['id']}")["status"] not in ("completed", "failed"):
        time.sleep(0.5)
    seconds = time.perf_counter() - started
    done.set()
    sender.join()
    beside_seconds = [each for each, _ in timings]
    return (
        f"- beside a list of {len(emails):,} addresses ({len(emails) / seconds:,.0f}/s, {seconds:.0f} s): "
        f"{len(timings)} batches of {BATCH} from another account took {_spread(beside_seconds)}, against "
        f"{_spread(alone)} alone; {sum(wrong for _, wrong in timings)} wrong verdicts"
    )


def _every_second(done: threading.Event, send: Callable[[], object]) -> None:
    """``send`` once a second until ``done`` (one at a time: a slow batch delays the next)."""
    while not done.wait(1.0):
        send()


def _batch(base: str, key: str, domains: list[str], rng: random.Random) -> tuple[float, int]:
    """Seconds until a batch of real mailboxes at 10 random domains answered, and its wrong verdicts."""
    emails = [f"user{40 + i}@{domain}" for i, domain in enumerate(rng.sample(domains, BATCH))]
    started = time.perf_counter()
    body = _post(base, key, "/validate/batch", {"emails": emails})
    seconds = time.perf_counter() - started
    if body["status"] != "completed":
        raise RuntimeError(f"batch not completed in time: {body['status']}")
    return seconds, wrong_verdicts((result["email"], result["isValid"]) for result in body["results"])


def _spread(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    return f"median {statistics.median(seconds):.2f} s, slowest {max(seconds):.2f} s"
