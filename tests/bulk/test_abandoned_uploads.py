"""Uploads whose web process died between storing the list and opening it (state ``uploading``): the
sweeper deletes the ones nobody paid for and opens the ones that were charged, which then run to the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import insert, select

from core import clock
from models.accounts import Account
from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.store import new_public_id
from services.usage import charging
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for
from tests.workers.rows import new_job

EMAILS = ["alice@mailbox.test", "not an address"]


def test_abandoned_uploads_are_deleted_unless_they_were_paid_for(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    paid = new_public_id(JobKind.BULK)
    with transaction() as session:
        account = session.get_one(Account, owner.account_id)
    # The charge went through, the answer never left. It is made before the job row exists, so the sweeper
    # (already running) can never see the paid upload without its charge.
    charging.charge_validations(account, len(EMAILS), paid)
    _abandoned_upload(owner, paid)
    unpaid = _abandoned_upload(owner, new_public_id(JobKind.BULK))

    _wait_until(lambda: _status(paid) not in (None, JobStatus.UPLOADING.value))
    finished = wait_for(live_api, owner, paid)

    assert finished["status"] == "completed"
    assert [result["email"] for result in finished["results"]] == EMAILS
    _wait_until(lambda: _status(unpaid) is None)
    assert live_api.call("get", f"/bulk/jobs/{unpaid}", owner).status_code == 404


def _abandoned_upload(owner: Persona, public_id: str) -> str:
    """A stored, never-opened list, as a web process that died an hour ago would have left it."""
    long_ago = clock.now() - timedelta(hours=1)
    with transaction() as session:
        options = {"quickMode": True, "skipCatchAll": False, "features": ["syntax", "domain"]}
        job = new_job(
            owner,
            JobKind.BULK,
            JobStatus.UPLOADING,
            len(EMAILS),
            options,
            at=long_ago,
            public_id=public_id,
            source="csv",
        )
        session.add(job)
        session.flush()
        rows = [
            {"job_id": job.id, "position": i, "input": e, "state": ItemState.NEW.value}
            for i, e in enumerate(EMAILS)
        ]
        session.execute(insert(JobItem), rows)
    return public_id


def _status(public_id: str) -> str | None:
    with transaction() as session:
        return session.scalar(select(ValidationJob.status).where(ValidationJob.public_id == public_id))


def _wait_until(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Poll until the sweeper (every second in tests) has done its part."""
    give_up = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < give_up, "the sweeper never got to it"
        time.sleep(0.2)
