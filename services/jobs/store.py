"""The SQL that writes validation jobs, their items and groups: the one module that writes them.

A new column of ``validation_jobs`` goes in ``open_job`` (every job a client submits) and in
``FinishedSingle`` (a quickMode answer's job, written with its charge by one statement or, when that
statement's conditions do not hold, in the charging transaction), side by side below.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg2
from sqlalchemy import Table, delete, insert, update
from sqlalchemy.orm import Session

from core import clock
from models import prepared
from models.base import Base
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from services.jobs import list_rows
from services.jobs.options import JobOptions, json_text, storable
from services.usage import charging
from services.usage.quota import QuotaStatus
from verifier.results import JsonValue, Severity, ValidationResult

# ---------------------------------------------------------------------------------------------------------
# Jobs as clients submit them (validation_jobs, and a new job's items)
# ---------------------------------------------------------------------------------------------------------

PREFIXES = {JobKind.SINGLE: "val_", JobKind.BATCH: "bat_", JobKind.BULK: "blk_"}


def new_public_id(kind: JobKind) -> str:
    return PREFIXES[kind] + secrets.token_hex(12)


def open_job(
    session: Session,
    *,
    account_id: int,
    key_id: int | None,
    kind: JobKind,
    options: JobOptions,
    lifetime: timedelta,
    total: int = 0,
    idempotency_key: str | None = None,
    digest: str | None = None,
    source: str | None = None,
    file_name: str | None = None,
) -> ValidationJob:
    """A new job in state ``uploading`` (stored, not charged, seen by no one), due to end ``lifetime`` from
    now; flushed, so its id is known."""
    now = clock.now()
    job = ValidationJob(
        public_id=new_public_id(kind),
        account_id=account_id,
        key_id=key_id,
        kind=kind.value,
        status=JobStatus.UPLOADING.value,
        options=options.to_json(),
        source=source,
        file_name=file_name,
        total=total,
        created_at=now,
        deadline=now + lifetime,
        idempotency_key=idempotency_key,
        request_digest=digest,
    )
    session.add(job)
    session.flush()
    return job


def insert_items(session: Session, job_id: int, inputs: Sequence[str]) -> int:
    """One row per input, duplicates marked (``list_rows``); the number of distinct addresses."""
    stored = [storable(raw) for raw in inputs]
    keys, firsts = list_rows.first_rows(stored)
    items = [
        {"job_id": job_id, "position": i, "input": raw, "state": ItemState.NEW.value}
        | {"key": keys[i], "duplicate_of": firsts[i]}
        for i, raw in enumerate(stored)
    ]
    session.execute(insert(JobItem), items)
    return len(set(keys))


def list_stored(job: ValidationJob, *, total: int, digest: str, columns: list[str] | None) -> None:
    """An uploaded list is in: its counts and digest; the sweeper's clock for abandoned uploads starts now,
    not when the list started coming."""
    job.total, job.request_digest, job.created_at, job.columns = total, digest, clock.now(), columns


def release_idempotency_key(session: Session, account_id: int, key: str, *, created_before: datetime) -> None:
    session.execute(
        update(ValidationJob)
        .where(ValidationJob.account_id == account_id, ValidationJob.idempotency_key == key)
        .where(ValidationJob.created_at < created_before)
        .values(idempotency_key=None)
    )


def delete_job(session: Session, job_id: int) -> None:
    """The job and (by cascade) its rows."""
    session.execute(delete(ValidationJob).where(ValidationJob.id == job_id))


def open_to_workers(session: Session, job_id: int) -> ValidationJob:
    """An ``uploading`` job becomes ``queued``, created as of now."""
    return session.scalars(
        update(ValidationJob)
        .where(ValidationJob.id == job_id, ValidationJob.status == JobStatus.UPLOADING.value)
        .values(status=JobStatus.QUEUED.value, created_at=clock.now())
        .returning(ValidationJob)
    ).one()


def cancel_job(session: Session, job_id: int) -> ValidationJob | None:
    """A queued or running job becomes ``cancelled`` with its groups not started; None if it was not
    queued or running."""
    stopped = session.scalars(
        update(ValidationJob)
        .where(
            ValidationJob.id == job_id,
            ValidationJob.status.in_([JobStatus.QUEUED.value, JobStatus.RUNNING.value]),
        )
        .values(status=JobStatus.CANCELLED.value, finished_at=clock.now())
        .returning(ValidationJob)
    ).one_or_none()
    if stopped is not None:
        session.execute(
            update(JobGroup)
            .where(
                JobGroup.job_id == job_id,
                JobGroup.state.in_([GroupState.PENDING.value, GroupState.QUEUED.value]),
            )
            .values(state=GroupState.CANCELLED.value)
        )
    return stopped


# ---------------------------------------------------------------------------------------------------------
# Jobs answered in the request (quickMode): the completed job of one and its item
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FinishedSingle:
    """One quickMode answer waiting to be recorded as a completed job of one."""

    public_id: str
    account_id: int
    key_id: int | None
    options: JobOptions
    email: str  # as submitted
    result: ValidationResult
    stored: dict[str, JsonValue]  # ``result.to_dict()``, built once for the record and the answer

    def job_row(self) -> dict[str, Any]:
        now = clock.now()
        times = {"created_at": now, "started_at": now, "finished_at": now, "deadline": now}
        return {
            "public_id": self.public_id,
            "account_id": self.account_id,
            "key_id": self.key_id,
            "kind": JobKind.SINGLE.value,
            "status": JobStatus.COMPLETED.value,
            "options": self.options.to_json(),
            "total": 1,
            "processed": 1,
            **times,
            **_counters(self.result.severity),
        }

    def item_row(self) -> dict[str, Any]:
        return {
            "position": 0,
            "input": storable(self.email),
            "email": self.result.email,
            "state": ItemState.DONE.value,
            "score": self.result.score,
            "severity": self.result.severity.value,
            "result": self.stored,
        }

    def statement_params(self) -> dict[str, Any]:
        """``_CHARGED_SINGLE``'s own values (the charge's come with it), built directly: this runs on every
        quick validation (the job row's timestamps and the rows' dicts were a twentieth of its CPU). The
        JSON columns go as text Postgres parses into ``jsonb``, so the serialiser's spacing is moot."""
        result = self.result
        return {
            "public_id": self.public_id,
            "key_id": self.key_id,
            "options": json_text(self.options.to_json()),
            "input": storable(self.email),
            "email": result.email,
            "score": result.score,
            "severity": result.severity.value,
            "result": json_text(self.stored),
        }


def _counters(severity: Severity) -> dict[str, int]:
    return {name.value: int(name is severity) for name in Severity}


def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


# Built once: the values come as execute parameters, so no per-request statement construction (measured:
# building ``insert(...).values(...)`` was a fifth of the record's CPU).
_INSERT_JOB = insert(_table(ValidationJob)).returning(_table(ValidationJob).c.id)
_INSERT_ITEM = insert(_table(JobItem))


def insert_finished_single(session: Session, single: FinishedSingle) -> None:
    """The job and its item by Core inserts, no ORM unit of work (the rows are never read back here)."""
    job_id = session.execute(_INSERT_JOB, single.job_row()).scalar_one()
    session.execute(_INSERT_ITEM, {"job_id": job_id, **single.item_row()})


# The job and its item after the charge (``charging.charge_ctes``: ``charged`` is the charge that must exist;
# ``:account_id`` and ``:now`` are the charge's values). What every quick validation shares is written in
# the text (and so in the prepared plan) rather than passed: the driver quotes each parameter on every call
# (the literals are JobKind.SINGLE, JobStatus.COMPLETED, Severity and ItemState.DONE;
# tests/limits/test_quick_charge.py reads the rows back). The severity counters are the severity, counted.
_FINISHED_SINGLE_CTES = """
job AS (
  INSERT INTO validation_jobs (public_id, account_id, key_id, kind, status, options, total, processed,
    valid, warning, invalid, created_at, started_at, finished_at, deadline)
  SELECT :public_id, :account_id, :key_id, 'single', 'completed',
    CAST(:options AS jsonb), 1, 1, CAST(:severity = 'valid' AS int),
    CAST(:severity = 'warning' AS int), CAST(:severity = 'invalid' AS int),
    :now, :now, :now, :now
  FROM charged RETURNING id
), item AS (
  INSERT INTO job_items (job_id, position, input, email, state, score, severity, result)
  SELECT id, 0, :input, :email, 'done', :score, :severity, CAST(:result AS jsonb) FROM job
)"""
# ``validation.completed`` needs a payload built in Python: an account with a subscriber takes the charging
# transaction, which emits it.
_NO_SUBSCRIBER = """NOT EXISTS (
  SELECT 1 FROM webhook_endpoints WHERE account_id = :account_id AND status = 'enabled'
    AND events @> ARRAY['validation.completed']::text[])"""
_CHARGED_SINGLE = (
    f"WITH {charging.charge_ctes(only_if=_NO_SUBSCRIBER)}, {_FINISHED_SINGLE_CTES}\n{charging.LEAVE_CHARGED}"
)


def charge_and_insert_finished_single(
    charge: charging.StatementCharge, single: FinishedSingle
) -> QuotaStatus | None:
    """The charge, the job and its item in one autocommitted statement, one round trip
    (``models.prepared``); the quota it left, or None when its conditions did not hold and nothing was
    written (the period's first charge, a threshold, a subscriber, a replayed key): the caller then takes
    ``charging.charged_transaction`` and ``insert_finished_single``."""
    statement = prepared.committed_then(_CHARGED_SINGLE, charging.DURABLE)
    try:
        barrier = prepared.run_committed(statement, {**charge.params, **single.statement_params()})
    except psycopg2.IntegrityError:  # the claim's unique index: a key charged before
        return None
    return charge.status(barrier)
