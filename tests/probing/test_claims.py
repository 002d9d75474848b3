"""Several lanes' rounds claimed in one statement (``store.claim_groups``): each group is held by the token
of the lane that popped it, a group another claim still holds is left alone, and a dead lane's claims go
back to their lane at the next sweep while a live lane keeps its own.

Everything here is real (the run's Postgres and Redis).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from core import clock
from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.jobs import store
from services.probing.rounds import lanes
from services.probing.upkeep import sweep
from tests.fixtures.db import Persona
from tests.probing.groups import group_state, queued_group


def test_one_claim_for_two_lanes_holds_each_group_under_its_own_lanes_token(
    long_timers: None, owner: Persona
) -> None:
    queued = [queued_group(owner) for _ in range(4)]
    tokens = {domain: lanes.take(domain) for _, domain in queued}
    for group_id, domain in queued:
        assert lanes.pop_round(domain, 10).group_ids == [group_id]
    owned_by = {group_id: str(tokens[domain]) for group_id, domain in reversed(queued)}

    with transaction() as session:
        now = clock.now()
        claims = store.claim_groups(session, owned_by, now, now + timedelta(minutes=10))

    assert [claim.group_id for claim in claims] == sorted(owned_by)
    assert {claim.group_id: claim.domain for claim in claims} == dict(queued)
    assert _held_by(list(owned_by)) == owned_by
    with transaction() as session:  # held: a second claim of the same groups takes none of them
        assert store.claim_groups(session, owned_by, clock.now(), clock.now() + timedelta(minutes=10)) == []

    dead_group, dead_lane = queued[1]
    lanes.let_go(dead_lane, str(tokens[dead_lane]))  # its drain dies without saving what it claimed
    sweep.sweep()

    assert group_state(dead_group) == (GroupState.QUEUED.value, 1)
    for group_id, _ in queued[:1] + queued[2:]:
        assert group_state(group_id) == (GroupState.RUNNING.value, 1)


def _held_by(group_ids: list[int]) -> dict[int, str | None]:
    with transaction() as session:
        rows = session.execute(select(JobGroup.id, JobGroup.held_by).where(JobGroup.id.in_(group_ids)))
        return {row.id: row.held_by for row in rows}
