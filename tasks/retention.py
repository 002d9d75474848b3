"""Retention task: hourly purge of finished outbox records (``services.retention``); safe to run twice."""

from __future__ import annotations

from dataclasses import asdict

from celery import shared_task

from services import retention
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def purge_expired() -> dict[str, int]:
    return asdict(retention.purge_expired())


# Hourly keeps each purge small; nothing depends on its exact moment.
BEAT = [Every(purge_expired, 3600.0)]
