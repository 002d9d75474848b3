"""Requests of many lanes served together: each caller gets its own answer, runs are fewer than
requests under load but never heavier than their limit, and a failing run fails every caller of that
run (none hangs)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from services.probing.rounds.coalescer import Coalescer


def test_callers_at_the_same_moment_share_a_run_and_each_gets_its_own_answer() -> None:
    runs: list[list[int]] = []

    def double(items: list[int]) -> list[int]:
        runs.append(items)
        return [item * 2 for item in items]

    coalescer = Coalescer("test-double", double, gather=0.05, most=100)
    start = threading.Barrier(40)

    def call(n: int) -> int:
        start.wait()
        return coalescer.submit(n).result(timeout=10)

    with ThreadPoolExecutor(40) as pool:
        answers = list(pool.map(call, range(40)))

    assert answers == [n * 2 for n in range(40)]
    assert sorted(item for run in runs for item in run) == list(range(40))
    assert len(runs) < 10  # 40 requests, a handful of statements


def test_a_failing_run_fails_each_of_its_callers_and_the_next_run_still_serves() -> None:
    def picky(items: list[str]) -> list[str]:
        if "bad" in items:
            raise ValueError("run failed")
        return [item.upper() for item in items]

    coalescer = Coalescer("test-picky", picky, gather=0.05, most=100)
    good, bad = coalescer.submit("good"), coalescer.submit("bad")

    with pytest.raises(ValueError, match="run failed"):
        bad.result(timeout=10)
    with pytest.raises(ValueError, match="run failed"):
        good.result(timeout=10)  # shared the run, so shared its failure
    assert coalescer.submit("later").result(timeout=10) == "LATER"


def test_a_run_takes_requests_up_to_its_weight_and_the_rest_follow_in_the_next_runs() -> None:
    runs: list[list[int]] = []

    def record(items: list[int]) -> list[int]:
        runs.append(items)
        return items

    coalescer = Coalescer("test-most", record, gather=0.2, most=10, weight=lambda n: n)
    sizes = [4, 5, 3, 20, 1, 2]
    futures = [coalescer.submit(n) for n in sizes]  # all queued within the first gather

    assert [future.result(timeout=10) for future in futures] == sizes
    assert runs == [[4, 5], [3], [20], [1, 2]]  # one request heavier than the limit still runs alone
