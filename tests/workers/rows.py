"""A running batch written straight to Postgres: one pending group of one domain, as planning leaves it,
for tests that run (or break) the worker's side on their own terms."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import insert

from core import clock
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.submit import new_public_id
from tests.fixtures.db import Persona


def running_batch(owner: Persona, emails: list[str], options: dict[str, Any]) -> tuple[str, int]:
    """A planned, running batch of ``emails`` (all of one domain) with ``options`` stored as given;
    its public id and row id."""
    now, public_id, domain = clock.now(), new_public_id(JobKind.BATCH), emails[0].rpartition("@")[2]
    with transaction() as session:
        job = ValidationJob(
            public_id=public_id,
            account_id=owner.account_id,
            key_id=owner.key_id,
            kind=JobKind.BATCH.value,
            status=JobStatus.RUNNING.value,
            options=options,
            total=len(emails),
            created_at=now,
            planned_at=now,
            started_at=now,
            deadline=now + timedelta(minutes=15),
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
        return public_id, job.id
