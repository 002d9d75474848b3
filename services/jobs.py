"""Validation jobs as the API sees them: submit, wait, read, page through results, cancel.

Admission order, for every kind: rate limit (the web tier, one request), quota (``charge`` below, N
validations under the job's id, so a retried message never charges twice), then the job. The charge
commits before the job does; if the process dies between the two, the client was charged for a job it
never got an id for: rare, visible in the usage log, and preferable to running work nobody paid for.

Batches and single validations are planned right here in the web process (100 addresses parse in a few
milliseconds, less than a broker round trip); bulk lists are planned by a worker (``services.bulk``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import insert, select, update

from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services import clock, job_dispatch, job_plan
from services.auth import AuthContext
from services.errors import NotFound
from services.job_errors import BATCH_MAXIMUM, BatchEmpty, BatchTooLarge
from services.job_options import JobOptions, storable
from settings import get_settings

PREFIXES = {JobKind.SINGLE: "val_", JobKind.BATCH: "bat_", JobKind.BULK: "blk_"}
Charge = Callable[[int, str], object]


@dataclass(frozen=True)
class ResultsPage:
    job: ValidationJob
    results: list[dict[str, Any]]
    next_after: int | None  # the position to pass as ``startingAfter`` for the next page


def new_public_id(kind: JobKind) -> str:
    return PREFIXES[kind] + secrets.token_hex(12)


def submit(
    auth: AuthContext, kind: JobKind, inputs: Sequence[str], options: JobOptions, charge: Charge
) -> ValidationJob:
    """Charge, store and plan a single validation or a batch; its groups are at the broker on return."""
    if kind is JobKind.BATCH:
        check_batch_size(len(inputs))
    public_id = new_public_id(kind)
    charge(len(inputs), public_id)
    now = clock.now()
    with transaction() as session:
        job = ValidationJob(
            public_id=public_id, account_id=auth.account.id, key_id=auth.key.id, kind=kind.value,
            status=JobStatus.QUEUED.value, options=options.to_json(), total=len(inputs),
            deadline=now + timedelta(seconds=get_settings().jobs.batch_deadline), created_at=now,
        )  # fmt: skip
        session.add(job)
        session.flush()
        items = [
            {"job_id": job.id, "position": i, "input": storable(raw), "state": ItemState.NEW.value}
            for i, raw in enumerate(inputs)
        ]
        session.execute(insert(JobItem), items)
    job_plan.plan(job.id)
    return job


def check_batch_size(count: int) -> None:
    """Spec 4.2: 1 to 100 addresses."""
    if count == 0:
        raise BatchEmpty()
    if count > BATCH_MAXIMUM:
        raise BatchTooLarge(count)


def wait(job: ValidationJob, seconds: float) -> ValidationJob:
    """The job once finished, or as it stands after ``seconds``. Postgres is read after every signal
    slice, so a second waiter (a replayed request) is not left waiting for a signal the first consumed."""
    give_up = time.monotonic() + seconds
    while not JobStatus(job.status).finished and (left := give_up - time.monotonic()) > 0:
        job_dispatch.wait_done(job.public_id, left)
        job = reload(job.id)
    return job


def reload(job_id: int) -> ValidationJob:
    with transaction() as session:
        return session.get_one(ValidationJob, job_id, populate_existing=True)


def find(auth: AuthContext, public_id: str, kinds: Sequence[JobKind] = tuple(JobKind)) -> ValidationJob:
    """The caller's job; another account's id is answered exactly like an unknown one."""
    with transaction() as session:
        job = session.scalars(
            select(ValidationJob).where(
                ValidationJob.public_id == public_id,
                ValidationJob.account_id == auth.account.id,
                ValidationJob.kind.in_([kind.value for kind in kinds]),
                ValidationJob.status != JobStatus.UPLOADING.value,
            )
        ).one_or_none()
    if job is None:
        raise NotFound(f"No job {public_id!r} in this account.")
    return job


def results(job: ValidationJob, *, after: int | None = None, limit: int | None = None) -> ResultsPage:
    """Settled results in submission order (unsettled positions are left out until they settle)."""
    stmt = (
        select(JobItem.position, JobItem.result)
        .where(JobItem.job_id == job.id, JobItem.state == ItemState.DONE.value)
        .where(JobItem.position > (after if after is not None else -1))
        .order_by(JobItem.position)
    )
    with transaction() as session:
        rows = session.execute(stmt.limit(limit + 1) if limit else stmt).all()
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if limit else rows
    return ResultsPage(job, [row.result for row in rows], rows[-1].position if more and rows else None)


def cancel(auth: AuthContext, public_id: str, kinds: Sequence[JobKind]) -> ValidationJob:
    """Stop a job: no new group starts; groups already probing finish and their results are kept.
    Cancelling a finished job changes nothing (idempotent). Validations charged are not refunded."""
    job = find(auth, public_id, kinds)
    with transaction() as session:
        stopped = session.scalars(
            update(ValidationJob)
            .where(
                ValidationJob.id == job.id,
                ValidationJob.status.in_([JobStatus.QUEUED.value, JobStatus.RUNNING.value]),
            )
            .values(status=JobStatus.CANCELLED.value, finished_at=clock.now())
            .returning(ValidationJob)
        ).one_or_none()
        if stopped is not None:
            session.execute(
                update(JobGroup)
                .where(
                    JobGroup.job_id == job.id,
                    JobGroup.state.in_([GroupState.PENDING.value, GroupState.QUEUED.value]),
                )
                .values(state=GroupState.CANCELLED.value)
            )
            job_dispatch.signal_done(session, job.public_id)
    return reload(job.id)
