"""Starting the re-checks that are due: each run is an ordinary bulk job, charged and probed as one.

A run goes through three steps, each safe to repeat, so a sweep killed anywhere is finished by the next:

1. (one transaction, the list's row locked) the run's job is stored ``uploading`` with a copy of the
   baseline's rows (the user's cells too), and the run row ``starting`` (unique per list and number);
2. ``submit.admit`` charges its distinct addresses under the job's public id (a charge repeated under the
   same id counts nothing) and opens it to the workers; the quota refusing it deletes the job: the run is
   ``skipped`` and the list waits for its next date;
3. (one transaction) the run is ``running`` and the list's next date moves on; the plan message goes after
   commit (the job sweeper re-sends a lost one).

The comparison when the job completes is ``services.monitoring.compare``.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.jobs import JobKind, JobStatus, ValidationJob
from models.monitoring import MonitoredList, MonitorRun, RunStatus, Schedule
from models.session import transaction
from services.broker import PLAN_JOB_TASK, after_commit, send_task
from services.jobs import store
from services.jobs.options import JobOptions
from services.monitoring.actor import Scheduled
from services.monitoring.schedule import next_after
from services.usage.errors import QuotaExhausted
from services.validation.submit import admit
from settings import get_settings

log = logging.getLogger(__name__)
SWEEP_BATCH = 50
_COPY_ROWS = text("""
INSERT INTO job_items (job_id, position, input, state, key, duplicate_of, cells)
SELECT :job, position, input, CASE WHEN state = 'blank' THEN 'blank' ELSE 'new' END, key, duplicate_of, cells
FROM job_items WHERE job_id = :baseline
""")


def start_due(limit: int = SWEEP_BATCH) -> int:
    """Advance every active list that is due, or whose run is between steps; how many were looked at."""
    now = clock.now()
    started = select(MonitorRun.list_id).where(MonitorRun.status == RunStatus.STARTING.value)
    with transaction() as session:
        due = session.scalars(
            select(MonitoredList.id)
            .where(
                ((MonitoredList.next_run_at <= now) & ~MonitoredList.paused) | MonitoredList.id.in_(started)
            )
            .order_by(MonitoredList.next_run_at)
            .limit(limit)
        ).all()
    for list_id in due:
        advance(list_id)
    return len(due)


def advance(list_id: int) -> None:
    """Take the list's run one step further (see the module docstring); nothing when it is not due."""
    with transaction() as session:
        run_id = _starting_run(session, list_id)
    if run_id is not None:
        _admit(run_id)


def _starting_run(session: Session, list_id: int) -> int | None:
    """The run waiting at step 2, made now when the list is due and its last run is over."""
    kept = session.scalars(
        select(MonitoredList).where(MonitoredList.id == list_id).with_for_update(skip_locked=True)
    ).one_or_none()
    if kept is None:  # another sweep has it, or it was deleted
        return None
    last = session.scalars(
        select(MonitorRun).where(MonitorRun.list_id == list_id).order_by(MonitorRun.number.desc()).limit(1)
    ).one_or_none()
    if last is not None and last.status == RunStatus.STARTING.value:
        if last.job_id is not None:
            return last.id
        session.delete(last)  # its job, never charged, was expired by the job sweeper: make it again
        session.flush()
    elif last is not None and last.status == RunStatus.RUNNING.value:
        return None
    if kept.paused or kept.next_run_at > clock.now():
        return None
    return _new_run(session, kept, 1 if last is None else last.number + (last.status != RunStatus.STARTING))


def _new_run(session: Session, kept: MonitoredList, number: int) -> int:
    baseline = _baseline(session, kept)
    job = store.open_job(
        session,
        account_id=kept.account_id,
        key_id=None,
        kind=JobKind.BULK,
        # A re-check probes every address again: a recent verdict must not answer for it.
        options=JobOptions.from_json({**baseline.options, "maxAge": 0}),
        lifetime=timedelta(seconds=get_settings().jobs.bulk_deadline),
        total=baseline.total,
        source=baseline.source,
        file_name=f"{kept.name} (re-check {number})",
    )
    job.columns = baseline.columns
    session.execute(_COPY_ROWS, {"job": job.id, "baseline": baseline.id})
    run = MonitorRun(
        list_id=kept.id,
        number=number,
        job_id=job.id,
        baseline_job_id=baseline.id,
        status=RunStatus.STARTING.value,
    )
    session.add(run)
    session.flush()
    return run.id


def _baseline(session: Session, kept: MonitoredList) -> ValidationJob:
    """The job of the last completed run, or the kept list itself before the first."""
    last_job = (
        select(MonitorRun.job_id)
        .where(MonitorRun.list_id == kept.id, MonitorRun.status == RunStatus.COMPLETED.value)
        .where(MonitorRun.job_id.is_not(None))
        .order_by(MonitorRun.number.desc())
        .limit(1)
        .scalar_subquery()
    )
    found = session.scalars(select(ValidationJob).where(ValidationJob.id == last_job)).one_or_none()
    return found or session.get_one(ValidationJob, kept.source_job_id)


def _admit(run_id: int) -> None:
    with transaction() as session:
        run = session.get_one(MonitorRun, run_id)
        kept = session.get_one(MonitoredList, run.list_id)
        job = session.get_one(ValidationJob, run.job_id)
        account = session.get_one(Account, kept.account_id)
        distinct = store.distinct_addresses(session, job.id)
        job_status, public_id, job_id = job.status, job.public_id, job.id
    if job_status == JobStatus.UPLOADING.value:
        try:
            admit(Scheduled(account, kept.livemode), job_id, public_id, max(distinct, 1))
        except QuotaExhausted as refused:
            log.info("%s: run %s skipped: %s", kept.public_id, run_id, refused.message)
            _finish_step(run_id, RunStatus.SKIPPED, reason=refused.message)
            return
    _finish_step(run_id, RunStatus.RUNNING, plan=job_id)


def _finish_step(
    run_id: int, status: RunStatus, *, reason: str | None = None, plan: int | None = None
) -> None:
    """Step 3 (or a skipped run): the run's new status, the list's next date, then the plan message."""
    now = clock.now()
    with transaction() as session:
        run = session.scalars(
            update(MonitorRun)
            .where(MonitorRun.id == run_id, MonitorRun.status == RunStatus.STARTING.value)
            .values(status=status.value, reason=reason, finished_at=now if plan is None else None)
            .returning(MonitorRun)
        ).one_or_none()
        if run is None:
            return
        kept = session.get_one(MonitoredList, run.list_id)
        kept.next_run_at = next_after(Schedule(kept.schedule), now)
        if plan is not None:
            after_commit(session, lambda: send_task(PLAN_JOB_TASK, plan))
