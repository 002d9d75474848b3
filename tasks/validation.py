"""Job bookkeeping tasks (queue ``default``): planning a bulk list and the beat-driven sweeper.

Both are safe to run twice or concurrently; see ``services.job_plan`` and ``services.job_sweep``.
"""

from __future__ import annotations

from celery import shared_task

from services import job_plan, job_sweep


@shared_task(name="tasks.validation.plan_job", ignore_result=True)  # type: ignore[untyped-decorator]
def plan_job(job_id: int) -> None:
    job_plan.plan(job_id)


@shared_task(name="tasks.validation.sweep_jobs", ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_jobs() -> int:
    return job_sweep.sweep()
