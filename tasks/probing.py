"""Validation job tasks: planning a bulk list, draining a lane, and the beat-driven sweeper.

Ids (or a lane's name) in, everything else in Postgres, so each is safe to run twice or concurrently:
the claims in ``services.probing.jobs.plan`` and ``services.jobs.store`` decide whether there is anything to
do. ``drain_lane`` runs on the ``probes`` queue (a gevent pool that enforces no task time limit), so every
DNS and SMTP call inside has its own timeout (``verifier.config``).
"""

from __future__ import annotations

from celery import shared_task

from services.broker import DRAIN_LANE_TASK, PLAN_JOB_TASK
from services.probing.jobs import plan
from services.probing.rounds import lane_runs
from services.probing.upkeep import sweep
from settings import get_settings
from tasks.beat import Every


@shared_task(name=PLAN_JOB_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def plan_job(job_id: int) -> None:
    plan.plan_patiently(job_id)


@shared_task(name=DRAIN_LANE_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def drain_lane(lane: str) -> int:
    return lane_runs.drain(lane)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_jobs() -> int:
    return sweep.sweep_unless_running()


# Groups whose worker died (lease expired), whose message was lost, or whose greylisting retry is due, and
# bulk lists never planned.
BEAT = [Every(sweep_jobs, float(get_settings().jobs.sweep_interval))]
