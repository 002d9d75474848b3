"""A worker whose broker connection was made again sweeps at once (``services.probing.upkeep.recovery``).

Celery's consumer runs its steps' ``start`` each time it connects to the broker. The first time is the
worker starting; every later one follows a lost connection, after which nothing the broker held can be
trusted (a Redis restarted empty lost every queued message, plan messages of unplanned jobs included),
so the stores are swept without waiting for the beat sweeper's timers.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from celery import bootsteps

from services.probing.upkeep.recovery import RECOVERY

log = logging.getLogger(__name__)


class SweepOnReconnect(bootsteps.StartStopStep):  # type: ignore[misc]
    """A consumer step started on every broker connection; sweeps from the second on."""

    requires: ClassVar[set[str]] = {"celery.worker.consumer.connection:Connection"}

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.connected_before = False

    def start(self, parent: Any) -> None:  # noqa: ARG002 (Celery's step interface)
        if self.connected_before:
            log.warning("broker connection made again: sweeping for work it may have lost")
            RECOVERY.sweep_when_back()
        self.connected_before = True
