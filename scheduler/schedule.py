"""The beat schedule, gathered from the capabilities: each ``tasks/<capability>.py`` declares ``BEAT``.

Every entry wakes a task that reads due work from Postgres (next webhook attempt, key age, quota period,
expired job leases) and acts on it, so a missed tick delays work by one interval and never loses it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from tasks import audit, keys, mail, monitoring, probing, resellers, retention, usage, webhooks

TASK_MODULES: tuple[ModuleType, ...] = (
    audit,
    keys,
    mail,
    monitoring,
    probing,
    resellers,
    retention,
    usage,
    webhooks,
)


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Celery's ``beat_schedule``, one entry per declared ``Every``, named after its task."""
    return {every.task.name: every.entry() for module in TASK_MODULES for every in module.BEAT}
