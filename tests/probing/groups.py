"""A group as planning leaves it, and its state as Postgres has it: set-up and reads of the sweep tests."""

from __future__ import annotations

import secrets

from sqlalchemy import select

from models.jobs import JobGroup
from models.session import transaction
from services.probing import dispatch
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
