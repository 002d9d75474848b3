"""Validation job tasks: planning a bulk list, probing one domain group, and the beat-driven sweeper.

Ids in, everything else in Postgres, so each is safe to run twice or concurrently: the claims in
``services.jobs.plan`` and ``services.jobs.runs`` decide whether there is anything to do. ``probe_group`` runs
on the ``probes`` queue (a gevent pool that enforces no task time limit), so every DNS and SMTP call inside
has its own timeout (``verifier.config``).
"""

from __future__ import annotations

from celery import shared_task

from services.jobs import plan, runs, sweep


@shared_task(name="tasks.jobs.plan_job", ignore_result=True)  # type: ignore[untyped-decorator]
def plan_job(job_id: int) -> None:
    plan.plan(job_id)


@shared_task(name="tasks.jobs.probe_group", ignore_result=True)  # type: ignore[untyped-decorator]
def probe_group(group_id: int) -> bool:
    return runs.run_group(group_id)


@shared_task(name="tasks.jobs.sweep_jobs", ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_jobs() -> int:
    return sweep.sweep()
