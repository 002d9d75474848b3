"""``Every``: one beat entry, declared by each ``tasks/<capability>.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Every:
    """Wake ``task`` every ``seconds``.

    A tick expires after one interval, so a backlog of ticks never piles up while workers are down: the
    sweeper reads what is due from Postgres, and one sweep catches everything a missed tick left.
    """

    task: Any  # a Celery task (celery ships no type hints)
    seconds: float

    def entry(self) -> dict[str, Any]:
        return {"task": self.task.name, "schedule": self.seconds, "options": {"expires": self.seconds}}
