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
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from models import session as database
from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.auth import Actor, AuthContext, authorize
from services.errors import NotFound
from services.jobs import list_rows, store
from services.jobs.options import JobOptions
from services.probing.jobs import dispatch, plan, settling
from services.usage import charging
from services.usage import sandbox as sandbox_usage
from services.usage.quota import QuotaStatus
from services.validation import idempotency
from services.validation.errors import BATCH_MAXIMUM, BatchEmpty, BatchTooLarge, IdempotentRequestInProgress
from settings import get_settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResultsPage:
    job: ValidationJob
    results: list[dict[str, Any]]
    next_after: int | None  # the position to pass as ``startingAfter`` for the next page


@dataclass(frozen=True)
class Submitted:
    job: ValidationJob
    replayed: bool = False  # an earlier request with the same Idempotency-Key made this job
    quota: QuotaStatus | None = None  # what this submission's charge left; a replay charged nothing


def submit(
    actor: Actor,
    kind: JobKind,
    inputs: Sequence[str],
    options: JobOptions,
    *,
    idempotency_key: str | None = None,
) -> Submitted:
    """Store, charge and plan a single validation or a batch; its groups are at the broker on return.
    With an ``idempotency_key`` seen in the last 24 h, the earlier job instead (nothing charged)."""
    if kind is JobKind.BATCH:
        check_batch_size(len(inputs))
    digest = idempotency.digest_of(kind.value, list(inputs), *options.client_switches())
    if idempotency_key and (
        earlier := idempotency.earlier_job(actor.account.id, idempotency_key, actor.livemode)
    ):
        return Submitted(idempotency.same_request(earlier, digest), replayed=True)
    try:
        with transaction() as session:
            job = open_job(
                session,
                actor,
                kind,
                options,
                total=len(inputs),
                idempotency_key=idempotency_key,
                digest=digest,
            )
            distinct = store.insert_items(session, job.id, inputs)
    except IntegrityError as error:
        return replay_of_concurrent(error, actor, idempotency_key, digest)
    job, quota = admit(actor, job.id, job.public_id, distinct)
    plan.plan(job.id, plan.Reuse.of(job.account_id, job.options))
    return Submitted(job, quota=quota)


def open_job(
    session: Session,
    actor: Actor,
    kind: JobKind,
    options: JobOptions,
    *,
    idempotency_key: str | None,
    digest: str | None,
    total: int = 0,
    source: str | None = None,
    file_name: str | None = None,
) -> ValidationJob:
    """A new job in state ``uploading``: stored, not charged, seen by no one (``find`` hides it).

    Stored before it is charged so that two requests with one Idempotency-Key meet at its unique index
    instead of both being charged; ``admit`` then charges it and lets the workers have it."""
    if idempotency_key:
        idempotency.release_expired(session, actor.account.id, idempotency_key)
    jobs = get_settings().jobs
    deadline = jobs.bulk_deadline if kind is JobKind.BULK else jobs.batch_deadline
    return store.open_job(
        session,
        account_id=actor.account.id,
        key_id=actor.key_id,
        kind=kind,
        options=replace(options, livemode=actor.livemode),
        lifetime=timedelta(seconds=deadline),
        total=total,
        idempotency_key=idempotency_key,
        digest=digest,
        source=source,
        file_name=file_name,
    )


def admit(actor: Actor, job_id: int, public_id: str, count: int) -> tuple[ValidationJob, QuotaStatus | None]:
    """Charge ``count`` validations under the job's id (all or nothing), then open the job to the workers;
    the job and the quota the charge left. Refused, the job and its rows are deleted (freeing its
    Idempotency-Key) and the refusal propagates. Test mode charges nothing (quota None): the validations
    are counted in the sandbox's usage instead. A publishable key's charge is marked as its own
    (``charging``: it stops at the quota, no overage)."""
    if not actor.livemode:
        with transaction() as session:
            sandbox_usage.count_validations(session, actor.account, count)
            return store.open_to_workers(session, job_id), None
    publishable_key_id = actor.key_id if actor.is_publishable else None
    try:
        charged = charging.charge_validations(
            actor.account, count, public_id, by=actor, publishable_key_id=publishable_key_id
        )
    except Exception:
        with transaction() as session:
            store.delete_job(session, job_id)
        raise
    with transaction() as session:
        return store.open_to_workers(session, job_id), charged.status


def replay_of_concurrent(
    error: IntegrityError, actor: Actor, idempotency_key: str | None, digest: str
) -> Submitted:
    """A concurrent request with the same key stored its job first: answer with that job, or 409."""
    if not idempotency_key or not idempotency.is_key_conflict(error):
        raise error
    earlier = idempotency.earlier_job(actor.account.id, idempotency_key, actor.livemode)
    if earlier is None:  # it was refused (quota) and deleted meanwhile: the client may simply retry
        raise IdempotentRequestInProgress("A request with this Idempotency-Key just failed.")
    return Submitted(idempotency.same_request(earlier, digest), replayed=True)


def check_batch_size(count: int) -> None:
    """Spec 4.2: 1 to 100 addresses."""
    if count == 0:
        raise BatchEmpty()
    if count > BATCH_MAXIMUM:
        raise BatchTooLarge(count)


@dataclass(frozen=True)
class Waited:
    """A job as the wait left it; ``readiness`` is None when a store stopped answering meanwhile."""

    job: ValidationJob
    readiness: settling.Readiness | None


def wait(job: ValidationJob, seconds: float) -> Waited:
    """The job once finished or answered (every address has an answer, some of them interim while they
    are retried: ``settling.readiness`` tells), or as it stands after ``seconds``. Postgres is read after
    every signal slice, so a second waiter (a replayed request) is not left waiting for a signal the
    first consumed.

    A store that stops answering (a restart, an outage) ends the wait at once: the job is charged and the
    workers carry it on, so the caller answers with its results URL (never a 503 to a client who would
    retry and pay twice), and requests waiting through an outage do not hold every web thread."""
    give_up = time.monotonic() + seconds
    try:
        ready = settling.readiness(job)
        while not ready.answered and (left := give_up - time.monotonic()) > 0:
            dispatch.wait_done(job.public_id, left)
            job = reload(job.id)
            ready = settling.readiness(job)
    except (RedisError, DBAPIError) as error:
        if isinstance(error, DBAPIError) and not database.unreachable(error):
            raise
        log.warning("%s: a store is unreachable; answering with its results URL: %s", job.public_id, error)
        return Waited(job, None)
    return Waited(job, ready)


def reload(job_id: int) -> ValidationJob:
    with transaction() as session:
        return session.get_one(ValidationJob, job_id, populate_existing=True)


def find(actor: Actor, public_id: str, kinds: Sequence[JobKind] = tuple(JobKind)) -> ValidationJob:
    """The caller's job; another account's id, or a job of the other mode (test or live), is answered
    exactly like an unknown one."""
    with transaction() as session:
        job = session.scalars(
            select(ValidationJob).where(
                ValidationJob.public_id == public_id,
                ValidationJob.account_id == actor.account.id,
                ValidationJob.livemode == actor.livemode,
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
        if store.cancel_job(session, job.id) is not None:
            dispatch.signal_done(session, job.public_id)
    return reload(job.id)
