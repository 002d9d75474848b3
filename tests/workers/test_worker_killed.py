"""A worker killed with SIGKILL in the middle of a batch: the batch still completes, every address
exactly once, charged once. The sweeper (beat) takes the dead worker's group over once its lane hold has
run out, seconds later: the lease and requeue timers are at ten minutes here."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from maillab import MailLab
from models.jobs import JobGroup, JobItem, ValidationJob
from models.session import transaction
from models.usage import UsagePeriod
from tests.faults.stack import poll
from tests.fixtures.db import Persona
from tests.processes import start_worker
from tests.workers.harness import Api, Worker, wait_for

# slow.test answers every SMTP command after 1.5 s: its group is still probing when the worker dies.
SLOW = ["alice@slow.test", "bob@slow.test", "nobody@slow.test"]
QUICK = [f"user{i:02d}@bench-00{i % 3}.test" for i in range(12)] + ["carol@mailbox.test", "not-an-address"]


@pytest.fixture
def slow_env(job_env: dict[str, str]) -> dict[str, str]:
    timers = {"JOB_LEASE_SECONDS": "600", "JOB_REQUEUE_SECONDS": "600"}
    return {**job_env, "SMTP_BANNER_TIMEOUT": "5", "SMTP_TIMEOUT": "5", "SMTP_DEADLINE": "40"} | timers


@pytest.fixture
def doomed(slow_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    worker = start_worker(slow_env, "doomed")
    yield worker
    worker.kill()


def test_a_batch_survives_its_worker_being_killed(
    live_api: Api, doomed: Worker, slow_env: dict[str, str], owner: Persona, lab: MailLab
) -> None:
    emails = SLOW + QUICK
    accepted = live_api.call(
        "post", "/validate/batch", owner, json={"emails": emails}, headers={"Prefer": "respond-async"}
    ).json()
    job_id = _job_id(accepted["batchId"])
    _wait_until_probing(job_id, "slow.test")

    doomed.kill()
    rescuer = start_worker(slow_env, "rescuer")
    try:
        body = wait_for(live_api, owner, accepted["batchId"], timeout=120)
        # The rescuer's session ends once it has stood idle (``SMTP_SESSION_IDLE_SECONDS``).
        sessions = poll(lab.servers["slow"].transcripts, _one_ended, timeout=15)
    finally:
        rescuer.stop()

    assert body["status"] == "completed"
    assert body["progress"]["processed"] == body["progress"]["total"] == len(emails)
    assert [result["email"] for result in body["results"]] == [email.lower() for email in emails]
    with transaction() as session:
        items = session.scalars(select(JobItem).where(JobItem.job_id == job_id)).all()
        slow_group = session.scalars(
            select(JobGroup).where(JobGroup.job_id == job_id, JobGroup.domain == "slow.test")
        ).one()
        used = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == owner.account_id))
    assert sorted(item.position for item in items) == list(range(len(emails)))
    assert all(item.state == "done" for item in items)
    assert slow_group.attempts >= 2  # claimed by the dead worker, then by the rescuer
    assert used == len(emails)  # charged once, however often the work ran
    by_email = {result["email"]: result for result in body["results"]}
    assert by_email["alice@slow.test"]["checks"]["smtp"]["passed"] is True
    cut = [session for session in sessions if not session or session[-1].upper() != "QUIT"]
    assert cut, sessions  # the dead worker's SMTP conversation was cut off in the middle
    assert _one_ended(sessions), sessions  # the rescuer's ended


def _one_ended(sessions: list[list[str]]) -> bool:
    return any(session and session[-1].upper() == "QUIT" for session in sessions)


def _job_id(public_id: str) -> int:
    with transaction() as session:
        return session.scalars(select(ValidationJob.id).where(ValidationJob.public_id == public_id)).one()


def _wait_until_probing(job_id: int, domain: str, timeout: float = 30.0) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        with transaction() as session:
            state = session.scalar(
                select(JobGroup.state).where(JobGroup.job_id == job_id, JobGroup.domain == domain)
            )
        if state == "running":
            time.sleep(1.0)  # inside the SMTP conversation now
            return
        time.sleep(0.05)
    raise AssertionError(f"the {domain} group never started")
