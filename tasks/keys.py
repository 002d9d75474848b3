"""Key rotation task: the beat sweeper of the 90-day policy; a thin wrapper, safe to run twice or at once.

Which milestone is due, and whether it was already applied, is decided under row locks and a unique
constraint in ``services.keys.rotation``, so a duplicated, late or concurrent tick changes nothing.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task

from services.keys import rotation
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_key_rotation() -> dict[str, Any]:
    return asdict(rotation.run())


# Rotation (spec 3.1) is counted in days; every 15 minutes keeps the warnings, day-90 rotations and day-97
# deactivations within a quarter of an hour of their moment, and retries queued emails (their backoff
# starts at 5 minutes).
BEAT = [Every(sweep_key_rotation, 900.0)]
