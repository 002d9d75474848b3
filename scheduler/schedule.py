"""The beat schedule: one entry per sweeper task.

Each entry wakes a task that reads due work from Postgres (next webhook attempt, key age, quota period,
expired job leases) and acts on it, so a missed tick delays work by one interval and never loses it.
Later issues add their sweepers here.
"""

from __future__ import annotations

from typing import Any

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {}
