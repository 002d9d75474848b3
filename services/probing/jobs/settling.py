"""Temporary failures never hold a batch hostage: interim answers, and when a job counts as answered.

An address whose server failed temporarily (greylisting, a 421, a timeout) is answered at once with the
engine's unknown verdict and its ``retryAfter``. If the job asked for background retries
(``retryTemporary``), that answer is written as ``interim``: visible on the results URL and in the
synchronous answer, replaced when the retry settles it (``store.settle_items`` takes ``interim`` rows too).

So a job is *answered* once none of its items waits for a first answer, and *completed* (counters,
``batch.completed``, the download) only once the retries have ended. A batch or single validation whose
every item is answered wakes its waiting request (``dispatch.signal_done``), which then answers 200 with
the interim results instead of waiting out the retries.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.probing.jobs.dispatch import signal_done

UNANSWERED = (ItemState.NEW.value, ItemState.PENDING.value)


def wake_if_answered(job_id: int, kind: str) -> None:
    """After a group's answers are committed: wake the request waiting for a batch or single validation
    if every item now has an answer, some of them interim (completion wakes it otherwise). Run after
    commit, in its own transaction, so of two groups saving at once the later commit sees both (no
    wake-up lost, and no lock taken for it). Bulk lists have no waiting request (and may hold millions
    of rows): skipped."""
    if kind == JobKind.BULK.value:
        return
    with transaction() as session:
        job = session.get(ValidationJob, job_id)
        if job is not None and readiness_in(session, job).answered:
            signal_done(session, job.public_id)


@dataclass(frozen=True)
class Readiness:
    """Where a job's answers stand for a caller: may it answer 200, and how many answers are interim."""

    answered: bool
    retrying: int = 0


def readiness(job: ValidationJob) -> Readiness:
    """A completed job is answered; a running one once none of its items waits for a first answer and
    some answers are interim (a running job without any is merely between its last save and completion)."""
    if job.status != JobStatus.RUNNING.value:
        return _final(job)
    with transaction() as session:
        return readiness_in(session, job)


def readiness_in(session: Session, job: ValidationJob) -> Readiness:
    """``readiness`` inside a transaction already open: a caller holding a connection must not wait for a
    second one (a worker's greenlets each holding one and waiting for another exhaust its pool)."""
    if job.status != JobStatus.RUNNING.value:
        return _final(job)
    if _unanswered(session, job.id):
        return Readiness(answered=False)
    interim = session.scalar(_count(job.id, (ItemState.INTERIM.value,))) or 0
    return Readiness(interim > 0, interim)


def _final(job: ValidationJob) -> Readiness:
    """A job that no longer runs: answered if it completed (a cancelled or failed one never is)."""
    return Readiness(answered=job.status == JobStatus.COMPLETED.value)


def retrying(job: ValidationJob) -> int:
    """Answers of a running job that are interim (the results URL says how many)."""
    if job.status != JobStatus.RUNNING.value:
        return 0
    with transaction() as session:
        return session.scalar(_count(job.id, (ItemState.INTERIM.value,))) or 0


def _unanswered(session: Session, job_id: int) -> int:
    return session.scalar(_count(job_id, UNANSWERED)) or 0


def _count(job_id: int, states: tuple[str, ...]) -> Select[int]:
    items = select(func.count()).select_from(JobItem)
    return items.where(JobItem.job_id == job_id, JobItem.state.in_(states))
