"""One job sweep at a time across the fleet: a beat tick that finds a sweep running is dropped, and a
sweep asked for directly (after a fault) waits its turn, then sweeps.

A sweep elsewhere is this test holding the sweep's turn. The turn holds no database connection, so a
process of one connection (``DATABASE_POOL_SIZE=1``) still sweeps: tests/probing/test_one_connection.py.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from models.jobs import GroupState
from services.probing.rounds import lanes
from services.probing.upkeep import sweep
from tests.fixtures.db import Persona
from tests.probing.groups import claimed_group, group_state


def test_a_tick_during_a_sweep_is_dropped_and_a_fault_sweep_waits_for_its_turn(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain, token, _ = claimed_group(owner)
    lanes.let_go(domain, token)  # its drain died: the next sweep takes the group back
    elsewhere = sweep.sweep_turn()
    assert elsewhere.acquire(blocking=False)  # a sweep is running
    with ThreadPoolExecutor(max_workers=1) as other:
        assert sweep.sweep_unless_running() == 0
        after_fault = other.submit(sweep.sweep, after_fault=True)
        time.sleep(1)  # the fault sweep waits: the group is still held
        assert not after_fault.done()
        assert group_state(group_id) == (GroupState.RUNNING.value, 1)

        elsewhere.release()  # that sweep ends
        after_fault.result(timeout=60)
    assert group_state(group_id) == (GroupState.QUEUED.value, 1)
