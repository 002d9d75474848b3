"""``Coalescer``: many callers' small requests served by one statement, for the rounds of many lanes.

A worker drains hundreds of lanes at once, each round claiming and saving a group or two; one Postgres
transaction per round would cost more CPU than the probe itself. Requests submitted while the previous
run is busy (and for ``gather`` seconds after the first) go together into the next run, so the number of
statements follows the number of runs, not of rounds, and a caller waits at most one run plus ``gather``.

A run takes requests up to a total ``weight`` of ``most`` (the rest wait for the next run): the rounds of
every lane of a big list finish together, and one run over all of them would hold every result of the list
in memory at once.

Trade-off accepted: one failing request fails every request of its run (they share the transaction); the
callers handle it as they would their own failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

Item = TypeVar("Item")
Answer = TypeVar("Answer")


class Coalescer(Generic[Item, Answer]):
    """Runs ``run`` on the items submitted together; ``run`` answers one value per item, in order."""

    def __init__(
        self,
        name: str,
        run: Callable[[list[Item]], Sequence[Answer]],
        *,
        gather: float,
        most: int,
        weight: Callable[[Item], int] = lambda _item: 1,
    ) -> None:
        self.name = name
        self._run = run
        self._gather = gather
        self._most = most
        self._weight = weight
        self._pending: list[tuple[Item, Future[Answer]]] = []
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, item: Item) -> Future[Answer]:
        """Queue ``item`` for the next run; its future holds the answer (or the run's error)."""
        future: Future[Answer] = Future()
        with self._ready:
            self._pending.append((item, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            self._ready.notify()
        return future

    def _serve(self) -> None:
        while True:
            with self._ready:
                while not self._pending:
                    self._ready.wait()
            time.sleep(self._gather)  # let the rounds finishing at about the same time join this run
            with self._ready:
                taken = run_size([self._weight(item) for item, _ in self._pending], self._most)
                batch, self._pending = self._pending[:taken], self._pending[taken:]
            self._answer(batch)

    def _answer(self, batch: list[tuple[Item, Future[Answer]]]) -> None:
        try:
            answers = self._run([item for item, _ in batch])
        except Exception as error:  # noqa: BLE001 - handed to every caller of the run, not swallowed
            for _, future in batch:
                future.set_exception(error)
            return
        for (_, future), answer in zip(batch, answers, strict=True):
            future.set_result(answer)


def run_size(weights: Sequence[int], most: int) -> int:
    """How many of the pending requests (their weights, in order) the next run takes: at least one, then
    as many as fit in ``most``."""
    total = 0
    for count, weight in enumerate(weights):
        total += weight
        if total > most and count:
            return count
    return len(weights)
