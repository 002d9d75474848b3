"""``services/probing/coalescer.Coalescer`` in SimPy: the claims and saves of many lanes' rounds in one run.

One per probes worker and kind, as the service has one per process (``lane_runs.CLAIMS`` and ``SAVES``).
A run starts ``gather`` seconds after the first request waiting, takes the requests waiting up to
``most`` by weight (at least one), and runs them together; requests arriving meanwhile wait for the
next run. So the statements follow the runs, not the rounds, and a busy Postgres makes runs longer
and larger instead of more numerous.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import simpy

from services.probing.rounds.coalescer import run_size

Item = TypeVar("Item")
Process = Generator[simpy.Event, Any, Any]


@dataclass
class RunCounts:
    """Runs and the requests they took (the largest run by weight too)."""

    runs: int = 0
    requests: int = 0
    heaviest: int = 0


class Runs(Generic[Item]):
    """Requests of one kind in one worker; ``run`` is the run itself (a SimPy generator)."""

    def __init__(
        self,
        env: simpy.Environment,
        run: Callable[[list[Item]], Process],
        *,
        gather: float,
        most: int,
        weight: Callable[[Item], int],
    ) -> None:
        self.env, self._run, self._gather, self._most, self._weight = env, run, gather, most, weight
        self._pending: list[tuple[Item, simpy.Event]] = []
        self._idle: simpy.Event | None = None
        self.counts = RunCounts()
        env.process(self._serve())

    def submit(self, item: Item) -> simpy.Event:
        """Queue ``item`` for the next run; the event fires when its run is done."""
        done = self.env.event()
        self._pending.append((item, done))
        if self._idle is not None and not self._idle.triggered:
            self._idle.succeed()
        return done

    def _serve(self) -> Process:
        while True:
            if not self._pending:
                self._idle = self.env.event()
                yield self._idle
            yield self.env.timeout(self._gather)
            taken = run_size([self._weight(item) for item, _ in self._pending], self._most)
            batch, self._pending = self._pending[:taken], self._pending[taken:]
            items = [item for item, _ in batch]
            self._count(items)
            yield from self._run(items)
            for _, done in batch:
                done.succeed()

    def _count(self, items: list[Item]) -> None:
        self.counts.runs += 1
        self.counts.requests += len(items)
        self.counts.heaviest = max(self.counts.heaviest, sum(self._weight(item) for item in items))
