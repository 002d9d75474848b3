"""Keep a finished bulk list as a monitored list; read, reschedule, pause and forget it.

Every read and write is scoped by account and mode, so another account's list, or a list of the other mode
(test or live), is answered exactly like an unknown one (``NotFound``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.jobs import JobKind, JobStatus, ValidationJob
from models.monitoring import MonitoredList, MonitorRun, Schedule
from models.session import transaction
from services.auth import Actor
from services.errors import NotFound
from services.jobs import store
from services.monitoring.errors import AlreadyMonitored, NotMonitorable
from services.monitoring.schedule import next_after
from services.validation import submit


@dataclass(frozen=True)
class Monitored:
    """A list with its runs, newest first; ``source`` is the public id of the list it keeps."""

    kept: MonitoredList
    source: str
    runs: list[Run]


@dataclass(frozen=True)
class Run:
    run: MonitorRun
    job: str | None  # the public id of the run's bulk job (None: skipped, nothing ran)


@dataclass(frozen=True)
class Changes:
    """What a PATCH asks; None keeps the value."""

    schedule: Schedule | None = None
    paused: bool | None = None


def keep(actor: Actor, job_public_id: str, schedule: Schedule) -> Monitored:
    """Keep the caller's completed bulk list, first re-checked one ``schedule`` step from now."""
    job = submit.find(actor, job_public_id, [JobKind.BULK])
    if job.status != JobStatus.COMPLETED.value:
        raise NotMonitorable(f"The list {job_public_id} is {job.status}; only a completed list can be kept.")
    now = clock.now()
    kept = MonitoredList(
        public_id=f"mon_{secrets.token_hex(12)}",
        account_id=actor.account.id,
        livemode=actor.livemode,
        source_job_id=job.id,
        name=job.file_name or job.public_id,
        addresses=_distinct(job.id),
        schedule=schedule.value,
        next_run_at=next_after(schedule, now),
        created_at=now,
    )
    try:
        with transaction() as session:
            session.add(kept)
    except IntegrityError:  # kept already (maybe by a concurrent request): say which list holds it
        raise AlreadyMonitored(job_public_id, _kept_as(job.id)) from None
    return Monitored(kept, job.public_id, [])


def _distinct(job_id: int) -> int:
    with transaction() as session:
        return store.distinct_addresses(session, job_id)


def _kept_as(job_id: int) -> str:
    with transaction() as session:
        return session.scalars(
            select(MonitoredList.public_id).where(MonitoredList.source_job_id == job_id)
        ).one()


def all_lists(actor: Actor) -> list[Monitored]:
    """The caller's monitored lists, newest first, each with its runs."""
    with transaction() as session:
        kept = session.scalars(_owned(actor).order_by(MonitoredList.id.desc())).all()
        return [_with_runs(session, one) for one in kept]


def one(actor: Actor, public_id: str) -> Monitored:
    with transaction() as session:
        return _with_runs(session, _find(session, actor, public_id))


def update(actor: Actor, public_id: str, changes: Changes) -> Monitored:
    """A new schedule counts from the last run (or from when the list was kept): a weekly list made monthly
    is next due a month after it last ran. Resuming a list whose time has passed runs it at the next sweep."""
    with transaction() as session:
        kept = _find(session, actor, public_id, lock=True)
        if changes.schedule is not None and changes.schedule.value != kept.schedule:
            kept.schedule = changes.schedule.value
            kept.next_run_at = next_after(changes.schedule, _last_start(session, kept))
        if changes.paused is not None:
            kept.paused = changes.paused
        return _with_runs(session, kept)


def remove(actor: Actor, public_id: str) -> None:
    """Forget the list and its runs' history; the bulk jobs of its runs stay, as every list does."""
    with transaction() as session:
        kept = _find(session, actor, public_id, lock=True)
        session.execute(delete(MonitoredList).where(MonitoredList.id == kept.id))


def _owned(actor: Actor) -> Select[MonitoredList]:
    return select(MonitoredList).where(
        MonitoredList.account_id == actor.account.id, MonitoredList.livemode == actor.livemode
    )


def _find(session: Session, actor: Actor, public_id: str, *, lock: bool = False) -> MonitoredList:
    stmt = _owned(actor).where(MonitoredList.public_id == public_id)
    found = session.scalars(stmt.with_for_update() if lock else stmt).one_or_none()
    if found is None:
        raise NotFound(f"No monitored list {public_id!r} in this account.")
    return found


def _with_runs(session: Session, kept: MonitoredList) -> Monitored:
    runs = session.execute(
        select(MonitorRun, ValidationJob.public_id)
        .outerjoin(ValidationJob, ValidationJob.id == MonitorRun.job_id)
        .where(MonitorRun.list_id == kept.id)
        .order_by(MonitorRun.number.desc())
    ).all()
    source = session.scalars(
        select(ValidationJob.public_id).where(ValidationJob.id == kept.source_job_id)
    ).one()
    return Monitored(kept, source, [Run(run, job) for run, job in runs])


def _last_start(session: Session, kept: MonitoredList) -> datetime:
    last = session.scalars(
        select(MonitorRun.created_at).where(MonitorRun.list_id == kept.id).order_by(MonitorRun.number.desc())
    ).first()
    return last or kept.created_at
