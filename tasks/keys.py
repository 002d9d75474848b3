"""Key rotation task: the beat sweeper of the 90-day policy; a thin wrapper, safe to run twice or at once.

Which milestone is due, and whether it was already applied, is decided under row locks and a unique
constraint in ``services.keys.rotation``, so a duplicated, late or concurrent tick changes nothing.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task

from services.keys import rotation


@shared_task(name="tasks.keys.sweep_key_rotation", ignore_result=True)  # type: ignore[untyped-decorator]  # celery has no type hints
def sweep_key_rotation() -> dict[str, Any]:
    return asdict(rotation.run())
