"""Validation jobs as the API sees them: submit, wait, read, page through results, cancel.

Admission order, for every kind: rate limit (the web tier, one request), the job stored as ``uploading``
(hidden, not run; with the client's Idempotency-Key, see ``services.validation.idempotency``), quota
(``admit``: N validations under the job's id, so a retried message never charges twice), then the job is
opened to the workers. A process dying between store and charge leaves an ``uploading`` job that the sweeper
expires (deleted if uncharged, opened if charged), so nothing runs unpaid and nothing paid is lost.

Batches and single validations are planned right here in the web process (100 addresses parse in a few
milliseconds, less than a broker round trip); bulk lists are planned by a
worker (``services.validation.bulk``).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models import session as database
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.auth import Actor, AuthContext, authorize
from services.errors import NotFound
from services.jobs import list_rows
from services.jobs.options import JobOptions, storable
from services.probing import dispatch, plan, settling
from services.validation import idempotency
from services.validation.errors import BATCH_MAXIMUM, BatchEmpty, BatchTooLarge, IdempotentRequestInProgress
from settings import get_settings

log = logging.getLogger(__name__)
PREFIXES = {JobKind.SINGLE: "val_", JobKind.BATCH: "bat_", JobKind.BULK: "blk_"}
# Charges (count, idempotency key) to the caller's quota: the web tier passes its limits-aware charge.
Charger = Callable[[int, str], object]


@dataclass(frozen=True)
class ResultsPage:
    job: ValidationJob
    results: list[dict[str, Any]]
    next_after: int | None  # the position to pass as ``startingAfter`` for the next page


def new_public_id(kind: JobKind) -> str:
    return PREFIXES[kind] + secrets.token_hex(12)


@dataclass(frozen=True)
class Submitted:
    job: ValidationJob
    replayed: bool = False  # an earlier request with the same Idempotency-Key made this job


def submit(
    actor: Actor,
    kind: JobKind,
    inputs: Sequence[str],
    options: JobOptions,
    charge: Charger,
    *,
    idempotency_key: str | None = None,
) -> Submitted:
    """Store, charge and plan a single validation or a batch; its groups are at the broker on return.
    With an ``idempotency_key`` seen in the last 24 h, the earlier job instead (nothing charged)."""
    if kind is JobKind.BATCH:
        check_batch_size(len(inputs))
    digest = idempotency.digest_of(kind.value, list(inputs), *options.client_switches())
    if idempotency_key and (earlier := idempotency.earlier_job(actor.account.id, idempotency_key)):
        return Submitted(idempotency.same_request(earlier, digest), replayed=True)
    try:
        with transaction() as session:
            job = open_job(session, actor, kind, options, idempotency_key=idempotency_key, digest=digest)
            job.total = len(inputs)
            distinct = _store_items(session, job.id, inputs)
    except IntegrityError as error:
        return replay_of_concurrent(error, actor, idempotency_key, digest)
    job = admit(job.id, job.public_id, distinct, charge)
    plan.plan(job.id)
    return Submitted(job)


def _store_items(session: Session, job_id: int, inputs: Sequence[str]) -> int:
    """One row per input, duplicates marked (``services.jobs.list_rows``); the distinct addresses."""
    stored = [storable(raw) for raw in inputs]
    keys, firsts = list_rows.first_rows(stored)
    items = [
        {"job_id": job_id, "position": i, "input": raw, "state": ItemState.NEW.value}
        | {"key": keys[i], "duplicate_of": firsts[i]}
        for i, raw in enumerate(stored)
    ]
    session.execute(insert(JobItem), items)
    return len(set(keys))


def open_job(
    session: Session,
    actor: Actor,
    kind: JobKind,
    options: JobOptions,
    *,
    idempotency_key: str | None,
    digest: str | None,
) -> ValidationJob:
    """A new job in state ``uploading``: stored, not charged, seen by no one (``find`` hides it).

    Stored before it is charged so that two requests with one Idempotency-Key meet at its unique index
    instead of both being charged; ``admit`` then charges it and lets the workers have it."""
    if idempotency_key:
        idempotency.release_expired(session, actor.account.id, idempotency_key)
    jobs, now = get_settings().jobs, clock.now()
    deadline = jobs.bulk_deadline if kind is JobKind.BULK else jobs.batch_deadline
    job = ValidationJob(
        public_id=new_public_id(kind),
        account_id=actor.account.id,
        key_id=actor.key_id,
        kind=kind.value,
        status=JobStatus.UPLOADING.value,
        options=options.to_json(),
        total=0,
        created_at=now,
        deadline=now + timedelta(seconds=deadline),
        idempotency_key=idempotency_key,
        request_digest=digest,
    )
    session.add(job)
    session.flush()
    return job


def admit(job_id: int, public_id: str, count: int, charge: Charger) -> ValidationJob:
    """Charge ``count`` validations under the job's id (all or nothing), then open the job to the workers.
    Refused, the job and its rows are deleted (freeing its Idempotency-Key) and the refusal propagates."""
    try:
        charge(count, public_id)
    except Exception:
        with transaction() as session:
            session.execute(delete(ValidationJob).where(ValidationJob.id == job_id))
        raise
    with transaction() as session:
        return session.scalars(
            update(ValidationJob)
            .where(ValidationJob.id == job_id, ValidationJob.status == JobStatus.UPLOADING.value)
            .values(status=JobStatus.QUEUED.value, created_at=clock.now())
            .returning(ValidationJob)
        ).one()


def replay_of_concurrent(
    error: IntegrityError, actor: Actor, idempotency_key: str | None, digest: str
) -> Submitted:
    """A concurrent request with the same key stored its job first: answer with that job, or 409."""
    if not idempotency_key or not idempotency.is_key_conflict(error):
        raise error
    earlier = idempotency.earlier_job(actor.account.id, idempotency_key)
    if earlier is None:  # it was refused (quota) and deleted meanwhile: the client may simply retry
        raise IdempotentRequestInProgress("A request with this Idempotency-Key just failed.")
    return Submitted(idempotency.same_request(earlier, digest), replayed=True)


def check_batch_size(count: int) -> None:
    """Spec 4.2: 1 to 100 addresses."""
    if count == 0:
        raise BatchEmpty()
    if count > BATCH_MAXIMUM:
        raise BatchTooLarge(count)


def wait(job: ValidationJob, seconds: float) -> ValidationJob:
    """The job once finished or answered (every address has an answer, some of them interim while they
    are retried: ``settling.readiness`` tells), or as it stands after ``seconds``. Postgres is read after
    every signal slice, so a second waiter (a replayed request) is not left waiting for a signal the
    first consumed."""
    give_up = time.monotonic() + seconds
    while not _answered(job) and (left := give_up - time.monotonic()) > 0:
        dispatch.wait_done(job.public_id, left)
        job = reload_if_reachable(job)
    return job


def reload_if_reachable(job: ValidationJob) -> ValidationJob:
    """The job as Postgres has it now, or as last seen while Postgres is unreachable (a restart): the job
    is charged and the workers carry it on, so the waiter keeps waiting rather than answering 503 to a
    client who would retry and pay twice."""
    try:
        return reload(job.id)
    except DBAPIError as error:
        if not database.unreachable(error):
            raise
        log.warning("%s not re-read: Postgres unreachable; still waiting", job.public_id)
        return job


def _answered(job: ValidationJob) -> bool:
    """Finished, or every address answered; while Postgres is unreachable, not yet (keep waiting)."""
    if JobStatus(job.status).finished:
        return True
    try:
        return settling.readiness(job).answered
    except DBAPIError as error:
        if not database.unreachable(error):
            raise
        return False


def reload(job_id: int) -> ValidationJob:
    with transaction() as session:
        return session.get_one(ValidationJob, job_id, populate_existing=True)


def find(actor: Actor, public_id: str, kinds: Sequence[JobKind] = tuple(JobKind)) -> ValidationJob:
    """The caller's job; another account's id is answered exactly like an unknown one."""
    with transaction() as session:
        job = session.scalars(
            select(ValidationJob).where(
                ValidationJob.public_id == public_id,
                ValidationJob.account_id == actor.account.id,
                ValidationJob.kind.in_([kind.value for kind in kinds]),
                ValidationJob.status != JobStatus.UPLOADING.value,
            )
        ).one_or_none()
    if job is None:
        raise NotFound(f"No job {public_id!r} in this account.")
    return job


def find_readable(auth: AuthContext, public_id: str) -> ValidationJob:
    """The caller's job for its results URL: ``validate:read`` for batches and single validations,
    ``bulk:*`` for bulk lists, the scope every other bulk route needs (a narrower key must not read them)."""
    job = find(auth, public_id)
    authorize(auth, "bulk:*" if job.kind == JobKind.BULK.value else "validate:read")
    return job


def results(job: ValidationJob, *, after: int | None = None, limit: int | None = None) -> ResultsPage:
    """Answered results in submission order, interim ones included (positions not answered yet are left
    out until they are), each as its own row is answered (``list_rows.answer``: index, input, email,
    duplicateOf)."""
    answered = (ItemState.DONE.value, ItemState.INTERIM.value)
    stmt = (
        select(JobItem.position, JobItem.input, JobItem.duplicate_of, JobItem.result)
        .where(JobItem.job_id == job.id, JobItem.state.in_(answered))
        .where(JobItem.position > (after if after is not None else -1))
        .order_by(JobItem.position)
    )
    with transaction() as session:
        rows = session.execute(stmt.limit(limit + 1) if limit else stmt).all()
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if limit else rows
    answers = [
        list_rows.answer(job.kind, row.position, row.input, row.duplicate_of, row.result or {})
        for row in rows
    ]
    return ResultsPage(job, answers, rows[-1].position if more and rows else None)


def cancel(actor: Actor, public_id: str, kinds: Sequence[JobKind]) -> ValidationJob:
    """Stop a job: no new group starts; groups already probing finish and their results are kept.
    Cancelling a finished job changes nothing (idempotent). Validations charged are not refunded."""
    job = find(actor, public_id, kinds)
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
            dispatch.signal_done(session, job.public_id)
    return reload(job.id)
