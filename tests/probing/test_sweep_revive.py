"""What a killed worker or a lost message leaves behind is sent again at the next sweep, with the lease
and requeue timers at ten minutes: a group claimed under a lane hold that is gone goes back to the lane,
and a ``queued`` group whose ref was lost is queued again and its lane woken.

Everything here is real (the run's Postgres and Redis); the dead worker is this test letting go of the
lane it took, without saving what it claimed or popped.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select

from core import clock
from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.jobs import store
from services.probing import dispatch, lanes, sweep
from settings import get_settings
from tests.fixtures.db import Persona
from tests.workers.rows import running_batch

TEN_MINUTES = {"JOB_LEASE_SECONDS": "600", "JOB_REQUEUE_SECONDS": "600"}


@pytest.fixture
def long_timers(monkeypatch: pytest.MonkeyPatch, database_url: str) -> Iterator[None]:
    for name, value in TEN_MINUTES.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


def test_a_group_claimed_under_a_hold_that_is_gone_goes_back_to_its_lane_at_the_next_sweep(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain = _queued_group(owner)
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
    with transaction() as session:
        now = clock.now()
        [claim] = store.claim_groups(session, {group_id: token}, now, now + timedelta(minutes=10))

    sweep.sweep()
    assert _group(group_id) == (GroupState.RUNNING.value, 1)  # its hold lives: left alone

    lanes.let_go(domain, token)  # the drain ends without saving or letting go of its claim
    sweep.sweep()

    assert _group(group_id) == (GroupState.QUEUED.value, 1)  # claimed again only by the next drain
    assert lanes.owners([domain]) == {domain: "sent"}  # a drain message is on its way
    assert lanes.take(domain) is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
    assert claim.attempt == 1


def test_a_queued_group_whose_ref_was_lost_is_queued_again_at_the_next_sweep(
    long_timers: None, owner: Persona, frozen_clock: None
) -> None:
    group_id, domain = _queued_group(owner)
    _lose_its_ref(domain, group_id)

    sweep.sweep()
    assert lanes.owners([domain]) == {domain: None}  # just queued: its own push may still be coming

    clock.move(sweep.QUEUED_GRACE + timedelta(seconds=1))
    sweep.sweep()
    _assert_queued_again(group_id, domain)


def test_the_sweep_right_after_a_fault_queues_again_a_group_lost_a_moment_ago(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain = _queued_group(owner)
    _lose_its_ref(domain, group_id)

    sweep.sweep(after_fault=True)  # as a worker's recovery sweeps, once the stores answer again

    _assert_queued_again(group_id, domain)


def _lose_its_ref(domain: str, group_id: int) -> None:
    """A worker pops the group's ref, then dies before claiming it: its hold runs out."""
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
    lanes.let_go(domain, token)


def _assert_queued_again(group_id: int, domain: str) -> None:
    assert _group(group_id) == (GroupState.QUEUED.value, 0)
    assert lanes.owners([domain]) == {domain: "sent"}  # a drain message is on its way
    assert lanes.take(domain) is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]


def _queued_group(owner: Persona) -> tuple[int, str]:
    """A running batch's one group, of a domain of its own, queued in its lane as planning leaves it."""
    domain = f"revive-{secrets.token_hex(4)}.test"
    _, job_id = running_batch(owner, [f"alice@{domain}", f"bob@{domain}"], {})
    with transaction() as session:
        dispatch.send_due_groups(session, job_id, 10)
    with transaction() as session:
        group_id = session.scalars(select(JobGroup.id).where(JobGroup.job_id == job_id)).one()
    return group_id, domain


def _group(group_id: int) -> tuple[str, int]:
    with transaction() as session:
        row = session.execute(select(JobGroup.state, JobGroup.attempts).where(JobGroup.id == group_id)).one()
    return row.state, row.attempts
