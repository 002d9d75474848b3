"""Retention task: hourly purge of finished outbox records (``services.retention``); safe to run twice."""

from __future__ import annotations

from dataclasses import asdict

from celery import shared_task

from services import retention


@shared_task(name="tasks.retention.purge_expired", ignore_result=True)  # type: ignore[untyped-decorator]  # celery has no type hints
def purge_expired() -> dict[str, int]:
    return asdict(retention.purge_expired())
