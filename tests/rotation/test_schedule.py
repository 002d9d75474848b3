"""Beat wakes the rotation sweeper: the schedule names a task the worker really registers."""

from __future__ import annotations

from scheduler.schedule import BEAT_SCHEDULE
from workers.celery_app import create_celery


def test_beat_runs_the_rotation_sweep_every_15_minutes_on_a_registered_task() -> None:
    entry = BEAT_SCHEDULE["rotation-sweep-keys"]
    celery = create_celery()
    celery.loader.import_default_modules()

    assert entry["task"] == "tasks.keys.sweep_key_rotation"
    assert entry["task"] in celery.tasks
    assert entry["schedule"] == 900.0
