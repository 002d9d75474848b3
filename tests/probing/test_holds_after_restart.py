"""Redis restarted empty under a live drain: its claim is not taken back on the strength of a hold the
restart took, only once its holder had the time to put the hold back and did not.

The run's Postgres, and this test's own ``redis-server`` (restarted empty); the live holder is this
process's hold renewal, the dead one this test letting go.
"""

from __future__ import annotations

from models.jobs import GroupState
from services.probing.rounds import lanes
from services.probing.upkeep import holds, sweep
from tests.faults.stack import poll
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis, own_redis
from tests.probing.groups import claimed_group, group_state

__all__ = ["own_redis"]


def test_a_claim_whose_hold_an_empty_redis_lost_is_taken_back_only_if_its_holder_does_not_renew(
    long_timers: None, own_redis: OwnRedis, owner: Persona
) -> None:
    group_id, domain, token, _ = claimed_group(owner)
    own_redis.stop()
    own_redis.start()  # empty: the lane's hold is gone, its holder alive

    sweep.sweep(after_fault=True)
    assert group_state(group_id) == (GroupState.RUNNING.value, 1)  # its holder may still renew
    renewer = holds.Holds()
    renewer.keep(lanes.owner_key(domain), token)
    try:
        renewer.renew()  # the live drain's next renewal puts the hold back
        assert poll(holds.reasserted, bool, timeout=10)
        sweep.sweep(after_fault=True)
        assert group_state(group_id) == (GroupState.RUNNING.value, 1)  # held again: left alone
    finally:
        # Also when an assertion failed: a hold still kept is renewed for the rest of the process, into
        # whatever Redis later tests point the client at.
        renewer.drop(lanes.owner_key(domain))
    lanes.let_go(domain, token)  # now the drain ends without saving
    sweep.sweep(after_fault=True)
    assert group_state(group_id) == (GroupState.QUEUED.value, 1)
