"""Completing jobs: the degraded verdict, the event (in the completing transaction) and the waiter's wake-up.

A single validation emits ``validation.completed``; a batch or a bulk list ``batch.completed`` (spec 6.3,
``resultsUrl`` from ``services.links``). Both payload shapes live in ``services.webhooks.payloads``; both
carry the account's brand (``services.branding``), read only when some endpoint subscribes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.jobs import JobItem, JobKind, ValidationJob
from services import branding, links
from services.broker import COMPARE_RUNS_TASK, after_commit, send_task
from services.jobs import list_rows, store
from services.probing.jobs import degraded
from services.probing.jobs.dispatch import signal_done
from services.webhooks import events, payloads


def complete(session: Session, job_ids: Sequence[int]) -> set[int]:
    """Complete the running jobs of ``job_ids`` whose every item is settled (``store.complete``), each with
    its degraded verdict, its event and, after commit, its waiter's wake-up; the ids completed."""
    jobs = store.complete(session, job_ids)
    for job in jobs:
        if degraded.mark_if_degraded(session, job):
            session.refresh(job)
        emit_completed(session, job)
        signal_done(session, job.public_id)
    _compare_runs_after_commit(session, [job.id for job in jobs if job.kind == JobKind.BULK.value])
    return {job.id for job in jobs}


def _compare_runs_after_commit(session: Session, bulk_ids: list[int]) -> None:
    """A finished bulk list may be a monitored list's run: its comparison (``services.monitoring.compare``)
    is asked for after commit; a list that is no run costs the task one indexed read. A lost message is
    made up by the monitoring sweep."""
    if bulk_ids:
        after_commit(session, lambda: send_task(COMPARE_RUNS_TASK, bulk_ids))


def emit_completed(session: Session, job: ValidationJob) -> None:
    elapsed = processing_ms(job)
    if job.kind == JobKind.SINGLE.value:
        item = session.execute(
            select(JobItem.input, JobItem.result).where(JobItem.job_id == job.id, JobItem.position == 0)
        ).first()
        if item is not None and item.result is not None:  # the address as the API answers it
            result = list_rows.answer(job.kind, 0, item.input, None, item.result)
            emit_validation_completed(
                session, job.account_id, job.key_id, result, elapsed, livemode=job.livemode
            )
        return
    counts = {"total": job.total, "valid": job.valid, "invalid": job.invalid, "warning": job.warning}

    def payload() -> dict[str, Any]:
        url = links.results_url(job.public_id, links.account_host(session, job.account_id))
        brand = branding.brand_of_id(session, job.account_id)
        return payloads.batch_completed(job.public_id, counts, elapsed, url, brand.metadata())

    events.emit(session, job.account_id, "batch.completed", payload, livemode=job.livemode)


def emit_validation_completed(
    session: Session,
    account_id: int,
    key_id: int | None,
    result: Mapping[str, Any],
    elapsed_ms: int,
    *,
    livemode: bool = True,
) -> None:
    """``validation.completed`` from a result at hand (quickMode has it in memory: no read back); a test-mode
    validation's goes to test-mode endpoints only."""

    def payload() -> dict[str, Any]:
        brand = branding.brand_of_id(session, account_id)
        return payloads.validation_completed(result, elapsed_ms, key_id, brand.metadata())

    events.emit(session, account_id, "validation.completed", payload, livemode=livemode)


def processing_ms(job: ValidationJob) -> int:
    """Milliseconds from submission to the end (or to now, while it runs)."""
    end = job.finished_at or clock.now()
    return max(int((end - job.created_at).total_seconds() * 1000), 0)
