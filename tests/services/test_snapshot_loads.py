"""A process's snapshots (``services.snapshots``): an expired entry is read once for all the threads
that want it at that moment, and never served past its life."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from services import snapshots


def test_threads_missing_the_same_snapshot_read_it_once(database_url) -> None:
    cache: snapshots.Snapshots[str, str] = snapshots.Snapshots()
    loads: list[int] = []
    started = threading.Barrier(8)

    def slow_load() -> str:
        loads.append(1)
        time.sleep(0.2)  # a busy Postgres: every other thread asks while this read is in flight
        return "row"

    def ask() -> str | None:
        snapshots.read_generation()
        started.wait()
        return cache.get("key", slow_load).value

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: ask(), range(8)))
    assert answers == ["row"] * 8
    assert len(loads) == 1


def test_a_snapshot_is_read_again_after_its_life(database_url) -> None:
    cache: snapshots.Snapshots[str, int] = snapshots.Snapshots()
    values = iter(range(10))
    snapshots.read_generation()
    first = cache.get("key", lambda: next(values)).value
    assert cache.get("key", lambda: next(values)).value == first
    time.sleep(snapshots.TTL_SECONDS + 0.05)
    snapshots.read_generation()
    assert cache.get("key", lambda: next(values)).value != first


def test_waiters_read_for_themselves_when_the_loader_found_nothing(database_url) -> None:
    cache: snapshots.Snapshots[str, str] = snapshots.Snapshots()
    started = threading.Barrier(4)
    answers = iter([None, "row", "row", "row"])
    lock = threading.Lock()

    def load() -> str | None:
        with lock:
            answer = next(answers)
        time.sleep(0.05)
        return answer

    def ask() -> str | None:
        snapshots.read_generation()
        started.wait()
        return cache.get("key", load).value

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: ask(), range(4)))
    assert sorted(results, key=str) == [None, "row", "row", "row"]
