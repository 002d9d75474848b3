"""A group whose task fails every time it runs: after ``MAX_CLAIMS`` claims its addresses settle as "could
not be validated" (spec 4.2: still answered, invalid, score 0, a failed check with a reason) and the job
finishes, instead of the sweeper handing the group out forever.

The failure is real: the job's stored options lack keys the worker needs (as a row written by another
version would), so every run of ``probe_group`` raises inside the worker process.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import insert, select

from core import clock
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.probe import MAX_CLAIMS
from services.jobs.submit import new_public_id
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for, worker

__all__ = ["worker"]
EMAILS = ["alice@mailbox.test", "bob@mailbox.test"]


def test_a_group_that_keeps_failing_settles_as_not_validated(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    public_id, job_id = _poisoned_batch(owner)

    body = wait_for(live_api, owner, public_id, timeout=120)

    assert body["status"] == "completed"
    assert [result["email"] for result in body["results"]] == EMAILS
    for result in body["results"]:
        assert (result["isValid"], result["score"], result["severity"]) == (False, 0, "invalid")
        failed = [check for check in result["checks"].values() if check["passed"] is False]
        assert failed
        assert failed[0]["status"] == "fail"
        assert "could not be validated" in failed[0]["reason"].lower()
    with transaction() as session:
        group = session.scalars(select(JobGroup).where(JobGroup.job_id == job_id)).one()
    assert group.state == GroupState.DONE.value
    assert group.attempts == MAX_CLAIMS + 1
    assert "KeyError" in worker.log.read_text(errors="replace")  # it did run, and fail, in the worker


def _poisoned_batch(owner: Persona) -> tuple[str, int]:
    """A planned, running batch of one pending group whose options the worker cannot read."""
    now, public_id = clock.now(), new_public_id(JobKind.BATCH)
    with transaction() as session:
        job = ValidationJob(
            public_id=public_id,
            account_id=owner.account_id,
            key_id=owner.key_id,
            kind=JobKind.BATCH.value,
            status=JobStatus.RUNNING.value,
            options={"quickMode": False},
            total=len(EMAILS),
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
                "domain": "mailbox.test",
                "state": ItemState.PENDING.value,
            }
            for i, e in enumerate(EMAILS)
        ]
        session.execute(insert(JobItem), items)
        group = JobGroup(
            job_id=job.id,
            domain="mailbox.test",
            emails=EMAILS,
            state=GroupState.PENDING.value,
            attempts=0,
            next_attempt_at=now,
        )
        session.add(group)
        return public_id, job.id
