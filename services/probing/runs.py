"""Running a job's domain groups: claiming them for a lane's round, and sending more (the job's window).

Exactly-once results on at-least-once messages, in three guards:

1. **Claim** is a conditional UPDATE (``queued``, or ``running`` with an expired lease) that bumps
   ``attempts``; no row means someone else has it or it is done, and the round skips it.
2. **Items** are settled with ``... WHERE state IN ('pending', 'interim')`` and the job's counters grow
   by the rows that statement actually changed, in the same transaction (``services.jobs.store``): a
   redelivered or taken-over group writes nothing twice and counts nothing twice.
3. **The group's own row** is updated only by the holder of the latest claim (``attempts`` is the fencing
   token): a worker that lost its lease while probing still saves its results (guard 2 keeps them
   single), but cannot mark done a group that a newer claim is working on.

The job completes in the transaction where ``processed`` reaches ``total`` (``completion.complete``);
that transaction also emits its event, and after commit wakes the web request waiting for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import Session

from core import clock
from models.jobs import GroupState, JobGroup, JobStatus, ValidationJob
from models.session import transaction
from services.probing.dispatch import send_groups
from services.probing.lanes import LaneRef
from settings import get_settings


@dataclass(frozen=True)
class Claim:
    group_id: int
    attempt: int
    job_id: int
    emails: list[str]
    options: dict[str, Any]  # parsed inside the guarded part of a round: unreadable options fail it
    deadline: datetime
    kind: str = "batch"

    @property
    def mine(self) -> ColumnElement[bool]:
        """The group row as long as this claim is the latest (``attempts`` is the fencing token)."""
        return and_(
            JobGroup.id == self.group_id,
            JobGroup.attempts == self.attempt,
            JobGroup.state == GroupState.RUNNING.value,
        )


def claim_groups(group_ids: list[int]) -> list[Claim]:
    """Claim every group of ``group_ids`` that is ours to run, in one statement (a lane's round)."""
    now = clock.now()
    lease_until = now + timedelta(seconds=get_settings().jobs.lease)
    claimable = or_(
        JobGroup.state == GroupState.QUEUED.value,
        and_(JobGroup.state == GroupState.RUNNING.value, JobGroup.lease_until < now),
    )
    stmt = (
        update(JobGroup)
        .where(JobGroup.id.in_(group_ids), claimable)
        .where(JobGroup.job_id == ValidationJob.id, ValidationJob.status == JobStatus.RUNNING.value)
        .values(state=GroupState.RUNNING.value, lease_until=lease_until, attempts=JobGroup.attempts + 1)
        .returning(
            JobGroup.id,
            JobGroup.attempts,
            JobGroup.job_id,
            JobGroup.emails,
            ValidationJob.options,
            ValidationJob.deadline,
            ValidationJob.kind,
        )
    )
    with transaction() as session:
        rows = session.execute(stmt).all()
    return [
        Claim(group_id, attempt, job_id, list(emails), dict(options), deadline, kind)
        for group_id, attempt, job_id, emails, options, deadline, kind in sorted(rows)
    ]


def fill_window(session: Session, job_id: int) -> None:
    """Keep up to ``JOB_WINDOW`` groups of this job at the broker, so one big list cannot flood the queue
    ahead of everyone else's batches. Two workers refilling at once may overshoot by a few: harmless."""
    in_flight = session.scalar(
        select(func.count())
        .select_from(JobGroup)
        .where(
            JobGroup.job_id == job_id, JobGroup.state.in_([GroupState.QUEUED.value, GroupState.RUNNING.value])
        )
    )
    room = get_settings().jobs.window - (in_flight or 0)
    if room > 0:
        dispatch(session, job_id, room)


def dispatch(session: Session, job_id: int, limit: int) -> list[int]:
    """Mark up to ``limit`` due pending groups queued (rows other transactions hold are skipped) and send
    their messages after commit."""
    now = clock.now()
    due = (
        select(JobGroup.id)
        .where(JobGroup.job_id == job_id, JobGroup.state == GroupState.PENDING.value)
        .where(JobGroup.next_attempt_at <= now)
        .order_by(JobGroup.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    account = select(ValidationJob.account_id).where(ValidationJob.id == job_id).scalar_subquery()
    rows = session.execute(
        update(JobGroup)
        .where(JobGroup.id.in_(due.scalar_subquery()))
        .values(state=GroupState.QUEUED.value, enqueued_at=now)
        .returning(JobGroup.id, JobGroup.domain, func.cardinality(JobGroup.emails), account)
    ).all()
    refs = [
        LaneRef(group_id, domain, account_id, size) for group_id, domain, size, account_id in sorted(rows)
    ]
    send_groups(session, refs)
    return [ref.group_id for ref in refs]
