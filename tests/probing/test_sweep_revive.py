"""What a killed worker or a lost message leaves behind is sent again at the next sweep, with the lease
and requeue timers at ten minutes: a group claimed under a lane hold that is gone goes back to the lane,
and a ``queued`` group whose ref was lost is queued again and its lane woken.

Everything here is real (the run's Postgres and Redis); the dead worker is this test letting go of the
lane it took, without saving what it claimed or popped.
"""

from __future__ import annotations

from datetime import timedelta

from core import clock
from models.jobs import GroupState
from services.probing.rounds import lanes
from services.probing.upkeep import sweep
from tests.fixtures.db import Persona
from tests.probing.groups import claimed_group, group_state, queued_group


def test_a_group_claimed_under_a_hold_that_is_gone_goes_back_to_its_lane_at_the_next_sweep(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain, token, claim = claimed_group(owner)

    sweep.sweep()
    assert group_state(group_id) == (GroupState.RUNNING.value, 1)  # its hold lives: left alone

    lanes.let_go(domain, token)  # the drain ends without saving or letting go of its claim
    sweep.sweep()

    assert group_state(group_id) == (GroupState.QUEUED.value, 1)  # claimed again only by the next drain
    assert lanes.owners([domain]) == {domain: "sent"}  # a drain message is on its way
    assert lanes.take(domain) is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
    assert claim.attempt == 1


def test_a_queued_group_whose_ref_was_lost_is_queued_again_at_the_next_sweep(
    long_timers: None, owner: Persona, frozen_clock: None
) -> None:
    group_id, domain = queued_group(owner)
    _lose_its_ref(domain, group_id)

    sweep.sweep()
    assert lanes.owners([domain]) == {domain: None}  # just queued: its own push may still be coming

    clock.move(sweep.QUEUED_GRACE + timedelta(seconds=1))
    sweep.sweep()
    _assert_queued_again(group_id, domain)


def test_the_sweep_right_after_a_fault_queues_again_a_group_lost_a_moment_ago(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain = queued_group(owner)
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
    assert group_state(group_id) == (GroupState.QUEUED.value, 0)
    assert lanes.owners([domain]) == {domain: "sent"}  # a drain message is on its way
    assert lanes.take(domain) is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
