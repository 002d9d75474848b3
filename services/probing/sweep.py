"""The job sweeper, run by beat every ``JOB_SWEEP_SECONDS``: Postgres says what is owed, this re-sends it.

- A group whose worker died (``running`` past its lease) or whose message got lost (``queued`` for longer
  than ``JOB_REQUEUE_SECONDS``) goes back to ``pending``. A killed worker therefore delays its groups by
  one lease plus one sweep, and loses nothing: its results were never written, or were written once.
- Every job with due pending groups (those just reset, greylisted ones whose retry time came) gets its
  window refilled.
- A job submitted but never planned (its plan message lost) gets its plan message again.
- A job left ``uploading`` for ``ABANDONED_UPLOAD`` (its web process died between storing and opening it)
  is opened if its charge went through (the client paid; a retry with its Idempotency-Key finds it) and
  deleted otherwise. Trade-off: a web process stalled that long between store and charge would find its
  job gone and answer 500 after charging; ten minutes is far beyond any real pause there.

The trade-off: a ``queued`` group that is merely waiting behind a long queue is re-sent after the requeue
time too; the duplicate message finds the group claimed or done and costs one UPDATE.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from core import clock
from models.jobs import GroupState, JobGroup, JobStatus, ValidationJob
from models.session import transaction
from services.broker import PLAN_JOB_TASK, send_after_commit
from services.jobs import store
from services.probing import dispatch
from settings import get_settings

ABANDONED_UPLOAD = timedelta(minutes=10)


def sweep() -> int:
    """Reset abandoned groups, refill windows, re-plan lost jobs; the number of jobs touched."""
    now, jobs = clock.now(), get_settings().jobs
    stale = now - timedelta(seconds=jobs.requeue_after)
    with transaction() as session:
        store.requeue_abandoned(session, now, stale)
        due = select(JobGroup.job_id).where(
            JobGroup.state == GroupState.PENDING.value, JobGroup.next_attempt_at <= now
        )
        job_ids = list(session.scalars(due.distinct()))
        for job_id in job_ids:
            dispatch.fill_window(session, job_id)
        lost = select(ValidationJob.id).where(
            ValidationJob.status == JobStatus.QUEUED.value,
            ValidationJob.planned_at.is_(None),
            ValidationJob.created_at < stale,
        )
        unplanned = list(session.scalars(lost)) + store.expire_uploads(session, now, now - ABANDONED_UPLOAD)
        for job_id in unplanned:
            send_after_commit(session, PLAN_JOB_TASK, job_id)
    return len(job_ids) + len(unplanned)
