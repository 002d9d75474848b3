"""Running a job's domain groups: claim, probe, save, and what happens next (more groups, or the end).

Exactly-once results on at-least-once messages, in three guards:

1. **Claim** is a conditional UPDATE (``queued``, or ``running`` with an expired lease) that bumps
   ``attempts``; no row means someone else has it or it is done, and the task just returns.
2. **Items** are settled with ``... WHERE state IN ('pending', 'interim')`` and the job's counters grow
   by the rows that statement actually changed, in the same transaction: a redelivered or taken-over group
   writes nothing twice and counts nothing twice.
3. **The group's own row** is updated only by the holder of the latest claim (``attempts`` is the fencing
   token): a worker that lost its lease while probing still saves its results (guard 2 keeps them
   single), but cannot mark done a group that a newer claim is working on.

The job completes in the transaction where ``processed`` reaches ``total``; that transaction also emits
its event, and after commit wakes the web request waiting for it.
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
from services.jobs import store
from services.jobs.options import JobOptions, result_row
from services.probing import completion, settling
from services.probing.dispatch import send_groups
from services.probing.lanes import LaneRef
from services.probing.probe import MAX_CLAIMS, GroupVerdicts, given_up, probe_group
from settings import get_settings


@dataclass(frozen=True)
class Claim:
    group_id: int
    attempt: int
    job_id: int
    emails: list[str]
    options: dict[str, Any]  # parsed inside the guarded part of ``run_group``: unreadable options fail it
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


def run_group(group_id: int) -> bool:
    """Probe group ``group_id`` if it is ours to run; False when there was nothing to do.

    A group claimed more than ``MAX_CLAIMS`` times keeps failing (a bug, a poisoned row, a worker killed
    by it every time): its addresses settle as "could not be validated" so the job still finishes."""
    claim = claim_group(group_id)
    if claim is None:
        return False
    verdicts = given_up(claim.emails, claim.attempt - 1) if claim.attempt > MAX_CLAIMS else _probe(claim)
    with transaction() as session:
        save(session, claim, verdicts)
    settling.wake_if_answered(claim.job_id, claim.kind)  # interim answers may have completed the set
    return True


def _probe(claim: Claim) -> GroupVerdicts:
    """The group's verdicts; on an error the claim is let go at once, so the next sweep (not the end of
    the lease) retries it, and the error propagates to the task's log and Flower."""
    try:
        options = JobOptions.from_json(claim.options)
        return probe_group(claim.emails, options, retry_until=claim.deadline, attempt=claim.attempt)
    except Exception:
        with transaction() as session:
            session.execute(
                update(JobGroup).where(claim.mine).values(state=GroupState.PENDING.value, lease_until=None)
            )
        raise


def claim_group(group_id: int) -> Claim | None:
    claims = claim_groups([group_id])
    return claims[0] if claims else None


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


def save(session: Session, claim: Claim, verdicts: GroupVerdicts) -> None:
    """Write the settled results and counters; answer the deferred for now (``settling``) and defer them;
    finish or refill the job."""
    if verdicts.unreachable is not None:
        session.execute(
            update(JobGroup)
            .where(JobGroup.id == claim.group_id)
            .values(unreachable=verdicts.unreachable, outcome=verdicts.outcome)
        )
    settled = [{"job": claim.job_id, **result_row(email, r)} for email, r in verdicts.settled.items()]
    store.add_counts(session, store.settle_items(session, settled))
    store.record_interim(
        session, [{"job": claim.job_id, **result_row(e, r)} for e, r in verdicts.interim.items()]
    )
    if verdicts.deferred:
        changes: dict[str, Any] = {"state": GroupState.PENDING.value, "emails": list(verdicts.deferred)}
        changes |= {"next_attempt_at": verdicts.retry_at, "enqueued_at": None, "lease_until": None}
    else:
        changes = {"state": GroupState.DONE.value, "finished_at": clock.now(), "lease_until": None}
    session.execute(update(JobGroup).where(claim.mine).values(**changes))
    if not completion.complete(session, [claim.job_id]):
        fill_window(session, claim.job_id)


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
