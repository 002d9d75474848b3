"""Comparing a finished run with the run before it: ``address.changed`` per change, then ``list.rechecked``.

One transaction does it all: the run's row goes from ``running`` to ``completed`` under a conditional
UPDATE (a second comparer, a redelivered message or the beat sweep, waits on the row lock and then finds
nothing to do), the changed addresses are written with one set-based INSERT whose primary key is (run,
address), and each change's event is emitted in the same transaction. A comparer killed mid-way rolls back
all of it, so every change is announced exactly once.

An address is compared by its first row (duplicates share its verdict); its verdict is the severity and the
reason the download shows (the first recommendation). A row the run could not check (cancelled) is left
out: nothing is known about it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from core import clock
from models.jobs import JobStatus, ValidationJob
from models.monitoring import MonitoredList, MonitorRun, RunStatus
from models.session import transaction
from services import links
from services.webhooks import events

_CHANGES = text("""
INSERT INTO monitor_changes (run_id, position, email, previous_severity, previous_reason, severity, reason)
SELECT :run, c.position, c.result->>'email', p.result->>'severity', p.result->'recommendations'->>0,
       c.result->>'severity', c.result->'recommendations'->>0
FROM job_items c JOIN job_items p ON p.job_id = :baseline AND p.position = c.position
WHERE c.job_id = :job AND c.duplicate_of IS NULL AND c.key IS NOT NULL AND c.result IS NOT NULL
  AND (p.result->>'severity' IS DISTINCT FROM c.result->>'severity'
       OR p.result->'recommendations'->>0 IS DISTINCT FROM c.result->'recommendations'->>0)
ON CONFLICT DO NOTHING
RETURNING position, email, previous_severity, previous_reason, severity, reason
""")
_COMPARED = text("""
SELECT count(*) FROM job_items
WHERE job_id = :job AND duplicate_of IS NULL AND key IS NOT NULL AND result IS NOT NULL
""")


def compare_finished(job_ids: list[int] | None = None) -> int:
    """Compare the running runs whose job has finished (of ``job_ids``, or all); how many were compared."""
    finished = [status.value for status in JobStatus if status.finished]
    stmt = (
        select(MonitorRun.id)
        .join(ValidationJob, ValidationJob.id == MonitorRun.job_id)
        .where(MonitorRun.status == RunStatus.RUNNING.value, ValidationJob.status.in_(finished))
    )
    if job_ids is not None:
        stmt = stmt.where(MonitorRun.job_id.in_(job_ids))
    with transaction() as session:
        run_ids = session.scalars(stmt).all()
    return sum(compare(run_id) for run_id in run_ids)


def compare(run_id: int) -> bool:
    """Compare one run (see the module docstring); False when it was compared already."""
    with transaction() as session:
        run = session.scalars(
            update(MonitorRun)
            .where(MonitorRun.id == run_id, MonitorRun.status == RunStatus.RUNNING.value)
            .values(status=RunStatus.COMPLETED.value, finished_at=clock.now())
            .returning(MonitorRun)
        ).one_or_none()
        if run is None:
            return False
        kept = session.get_one(MonitoredList, run.list_id)
        params = {"run": run.id, "job": run.job_id, "baseline": run.baseline_job_id}
        changes = session.execute(_CHANGES, params).mappings().all()
        run.changed, run.total = len(changes), int(session.scalar(_COMPARED, params) or 0)
        payloads = [_changed(kept, run, change) for change in changes]
        events.emit_many(session, kept.account_id, "address.changed", payloads, livemode=kept.livemode)
        _emit_rechecked(session, kept, run)
    return True


def _changed(kept: MonitoredList, run: MonitorRun, change: Any) -> dict[str, Any]:
    return {
        "listId": kept.public_id,
        "run": run.number,
        "email": change["email"],
        "row": change["position"],
        "previous": {"severity": change["previous_severity"], "reason": change["previous_reason"]},
        "current": {"severity": change["severity"], "reason": change["reason"]},
    }


def _emit_rechecked(session: Session, kept: MonitoredList, run: MonitorRun) -> None:
    def payload() -> dict[str, Any]:
        job = session.get_one(ValidationJob, run.job_id)
        host = links.account_host(session, kept.account_id)
        return {
            "listId": kept.public_id,
            "run": run.number,
            "jobId": job.public_id,
            "total": run.total,
            "changed": run.changed,
            "unchanged": run.total - run.changed,
            "valid": job.valid,
            "warning": job.warning,
            "invalid": job.invalid,
            "diffUrl": links.diff_url(kept.public_id, run.number, host),
        }

    events.emit(session, kept.account_id, "list.rechecked", payload, livemode=kept.livemode)
