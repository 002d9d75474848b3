"""A web request waiting for its job outlives the Redis client's socket timeout (5 s in redis-py 8): the
wait is cut into short blocking reads, and Postgres is read between them."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import update

from core import clock
from models.jobs import JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.store import new_public_id
from services.probing.jobs import dispatch
from services.validation import submit
from tests.fixtures.db import Persona

LONGER_THAN_THE_SOCKET_TIMEOUT = 6.0


def test_a_job_finishing_after_six_seconds_is_seen_by_its_waiter(owner: Persona) -> None:
    job = _running_job(owner)
    finisher = threading.Timer(LONGER_THAN_THE_SOCKET_TIMEOUT, _complete, args=(job,))
    finisher.start()
    try:
        seen = submit.wait(job, 30).job
    finally:
        finisher.join()

    assert seen.status == JobStatus.COMPLETED.value


def _running_job(owner: Persona) -> ValidationJob:
    now = clock.now()
    with transaction() as session:
        job = ValidationJob(
            public_id=new_public_id(JobKind.BATCH),
            account_id=owner.account_id,
            key_id=owner.key_id,
            kind=JobKind.BATCH.value,
            status=JobStatus.RUNNING.value,
            options={},
            total=1,
            created_at=now,
            deadline=now + timedelta(minutes=15),
        )
        session.add(job)
    return job


def _complete(job: ValidationJob) -> None:
    with transaction() as session:
        session.execute(
            update(ValidationJob).where(ValidationJob.id == job.id).values(status=JobStatus.COMPLETED.value)
        )
        dispatch.signal_done(session, job.public_id)
