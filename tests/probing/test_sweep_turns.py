"""One job sweep at a time across the fleet: a beat tick that finds a sweep running is dropped, and a
sweep asked for directly (after a fault) waits its turn, then sweeps.

A sweep elsewhere is this test holding the sweep's advisory lock in a transaction of its own.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select, text

from models.jobs import GroupState
from models.session import transaction
from services.probing import lanes, sweep
from tests.faults.stack import poll
from tests.fixtures.db import Persona
from tests.probing.groups import claimed_group, group_state

# Advisory locks are per database: other runs on the same server sweep databases of their own.
WAITING_FOR_THE_SWEEP_LOCK = text(
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :lock AND NOT granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


def test_a_tick_during_a_sweep_is_dropped_and_a_fault_sweep_waits_for_its_turn(
    long_timers: None, owner: Persona
) -> None:
    group_id, domain, token, _ = claimed_group(owner)
    lanes.let_go(domain, token)  # its drain died: the next sweep takes the group back
    with ThreadPoolExecutor(max_workers=1) as other, transaction() as elsewhere:
        elsewhere.execute(select(func.pg_advisory_xact_lock(sweep.SWEEP_LOCK)))  # a sweep is running

        assert sweep.sweep_unless_running() == 0
        after_fault = other.submit(sweep.sweep, after_fault=True)
        assert poll(_waiting_for_the_lock, bool, timeout=30)
        assert group_state(group_id) == (GroupState.RUNNING.value, 1)

        elsewhere.commit()  # that sweep ends
        after_fault.result(timeout=60)
    assert group_state(group_id) == (GroupState.QUEUED.value, 1)


def _waiting_for_the_lock() -> int:
    with transaction() as session:
        return int(session.scalar(WAITING_FOR_THE_SWEEP_LOCK, {"lock": sweep.SWEEP_LOCK}) or 0)
