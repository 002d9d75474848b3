"""A group as planning leaves it, and its state as Postgres has it: set-up and reads of the sweep tests."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select

from core import clock
from models.jobs import JobGroup
from models.session import transaction
from services.jobs import store
from services.jobs.store import Claim
from services.probing.jobs import dispatch
from services.probing.rounds import lanes
from tests.fixtures.db import Persona
from tests.workers.rows import running_batch


def queued_group(owner: Persona) -> tuple[int, str]:
    """A running batch's one group, of a domain of its own, queued in its lane as planning leaves it."""
    domain = f"revive-{secrets.token_hex(4)}.test"
    _, job_id = running_batch(owner, [f"alice@{domain}", f"bob@{domain}"], {})
    with transaction() as session:
        dispatch.send_due_groups(session, job_id, 10)
    with transaction() as session:
        group_id = session.scalars(select(JobGroup.id).where(JobGroup.job_id == job_id)).one()
    return group_id, domain


def group_state(group_id: int) -> tuple[str, int]:
    with transaction() as session:
        row = session.execute(select(JobGroup.state, JobGroup.attempts).where(JobGroup.id == group_id)).one()
    return row.state, row.attempts


def claimed_group(owner: Persona) -> tuple[int, str, str, Claim]:
    """``queued_group``, taken by a drain: its lane held (the token), its ref popped, the group claimed
    for ten minutes. The group's id, domain, the drain's token and its claim."""
    group_id, domain = queued_group(owner)
    token = lanes.take(domain)
    assert token is not None
    assert lanes.pop_round(domain, 10).group_ids == [group_id]
    with transaction() as session:
        now = clock.now()
        [claim] = store.claim_groups(session, {group_id: token}, now, now + timedelta(minutes=10))
    return group_id, domain, token, claim
