"""Probe tasks (queue ``probes``, an I/O pool): one domain group each. Ids in; everything else in Postgres.

Safe to run twice or concurrently: the claim in ``services.job_runs`` decides whether there is anything to
do. Every DNS and SMTP call inside has its own timeout (``verifier.config``), because the gevent pool
enforces no task time limit.
"""

from __future__ import annotations

from celery import shared_task

from services import job_runs


@shared_task(name="tasks.probes.probe_group", ignore_result=True)  # type: ignore[untyped-decorator]
def probe_group(group_id: int) -> bool:
    return job_runs.run_group(group_id)
