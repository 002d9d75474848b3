"""A running batch written straight to Postgres: one pending group of one domain, as planning leaves it,
for tests that run (or break) the worker's side on their own terms."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert

from core import clock
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.store import new_public_id
from tests.fixtures.db import Persona


def new_job(
    owner: Persona,
    kind: JobKind,
    status: JobStatus,
    total: int,
    options: dict[str, Any],
    *,
    at: datetime | None = None,
    public_id: str | None = None,
    **columns: Any,
) -> ValidationJob:
    """A job row of ``owner`` created ``at`` (now), not yet added to a session, as the service writes one
    (a list lasts a day, a batch a quarter of an hour); ``columns`` are those its state sets."""
    at = at or clock.now()
    lasts = timedelta(days=1) if kind is JobKind.BULK else timedelta(minutes=15)
    return ValidationJob(
        public_id=public_id or new_public_id(kind),
        account_id=owner.account_id,
        key_id=owner.key_id,
        kind=kind.value,
        status=status.value,
        total=total,
        created_at=at,
        deadline=at + lasts,
        options=options,
        **columns,
    )


def running_batch(owner: Persona, emails: list[str], options: dict[str, Any]) -> tuple[str, int]:
    """A planned, running batch of ``emails`` (all of one domain) with ``options`` stored as given;
    its public id and row id."""
    now, domain = clock.now(), emails[0].rpartition("@")[2]
    with transaction() as session:
        job = new_job(
            owner, JobKind.BATCH, JobStatus.RUNNING, len(emails), options, planned_at=now, started_at=now
        )
        session.add(job)
        session.flush()
        items = [
            {
                "job_id": job.id,
                "position": i,
                "input": e,
                "email": e,
                "domain": domain,
                "state": ItemState.PENDING.value,
            }
            for i, e in enumerate(emails)
        ]
        session.execute(insert(JobItem), items)
        group = JobGroup(
            job_id=job.id,
            domain=domain,
            emails=emails,
            state=GroupState.PENDING.value,
            attempts=0,
            next_attempt_at=now,
        )
        session.add(group)
        return job.public_id, job.id


def queued_list(
    owner: Persona, emails: list[str], options: dict[str, Any], *, livemode: bool = True
) -> tuple[str, int]:
    """A stored list of ``emails``, opened and waiting for its planner, as ``services.validation.bulk``
    leaves it; its public id and row id."""
    with transaction() as session:
        job = new_job(owner, JobKind.BULK, JobStatus.QUEUED, len(emails), options, source="json")
        job.livemode = livemode
        session.add(job)
        session.flush()
        rows = [
            {"job_id": job.id, "position": i, "input": email, "state": ItemState.NEW.value}
            | {"key": email, "duplicate_of": None}
            for i, email in enumerate(emails)
        ]
        session.execute(insert(JobItem), rows)
        return job.public_id, job.id
