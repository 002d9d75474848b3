"""A sweep opens a paid abandoned upload (and sends its plan) before it refills the windows of the due jobs,
in a transaction of its own: a backlog of due jobs, or one of their rows held, does not keep the list waiting.

The held row is this test's: a claimed group whose lease has run out, locked in a transaction of its own,
so the sweep's refill (which puts it back to ``pending``) waits until the test lets go.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy import select

from core import clock
from models.accounts import Account
from models.jobs import GroupState, JobGroup, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.store import new_public_id
from services.probing.upkeep import sweep
from services.usage import charging
from tests.faults.stack import poll
from tests.fixtures.db import Persona
from tests.probing.groups import claimed_group, group_state
from tests.workers.rows import new_job


def test_a_paid_abandoned_upload_is_opened_while_the_refill_waits_for_a_held_row(
    long_timers: None, owner: Persona, frozen_clock: None
) -> None:
    group_id, *_ = claimed_group(owner)
    paid = _paid_abandoned_upload(owner)
    clock.move(timedelta(minutes=11))  # the group's lease (ten minutes) has run out
    with ThreadPoolExecutor(max_workers=1) as other, transaction() as holder:
        holder.execute(select(JobGroup.id).where(JobGroup.id == group_id).with_for_update())
        swept = other.submit(sweep.sweep)

        assert poll(lambda: _status(paid), lambda status: status != JobStatus.UPLOADING.value, 30) == "queued"
        assert not swept.done()  # still waiting for the held group

        holder.commit()
        swept.result(timeout=60)
    assert group_state(group_id) == (GroupState.QUEUED.value, 1)  # the refill went on: queued again


def _paid_abandoned_upload(owner: Persona) -> str:
    public_id = new_public_id(JobKind.BULK)
    with transaction() as session:
        account = session.get_one(Account, owner.account_id)
    charging.charge_validations(account, 1, public_id)  # charged, then the web process died
    long_ago = clock.now() - timedelta(hours=1)  # stored, never opened
    upload = new_job(owner, JobKind.BULK, JobStatus.UPLOADING, 1, {}, at=long_ago, public_id=public_id)
    with transaction() as session:
        session.add(upload)
    return public_id


def _status(public_id: str) -> str | None:
    with transaction() as session:
        return session.scalar(select(ValidationJob.status).where(ValidationJob.public_id == public_id))
