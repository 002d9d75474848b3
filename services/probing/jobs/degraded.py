"""The engine's "checker degraded" verdict for distributed jobs (``Engine.verify_many`` does it in-process).

When at least ``DEGRADED_MIN_GROUPS`` domains of a job were probed and not one MX host of any of them said
a word, the likely cause is ours (outbound port 25 closed), not the domains': those results say
``checkerDegraded: true`` with the advice to retry later, and the job says ``checkerDegraded`` too.

Groups run apart, so the verdict is taken once, in the transaction that completes the job, over every
group's record (``job_groups.unreachable``; an unreachable group also keeps its engine outcome). The
results of unreachable groups are then re-assembled as degraded. Their scores do not change (degraded
changes only the advice and metadata), so the job's counters stay right. Trade-off: while the job runs,
the results URL shows those results without the degraded mark; the final answer, the download and
``batch.completed`` all come after the verdict.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.jobs import JobGroup, ValidationJob
from services.jobs import store
from services.jobs.options import JobOptions
from services.probing.rounds.probe import degraded_results
from verifier.engine import DEGRADED_MIN_GROUPS


def mark_if_degraded(session: Session, job: ValidationJob) -> bool:
    """At completion: if the job looks degraded, record it and re-assemble the unreachable groups' results."""
    probed = session.execute(
        select(JobGroup.domain, JobGroup.unreachable, JobGroup.emails, JobGroup.outcome).where(
            JobGroup.job_id == job.id, JobGroup.unreachable.is_not(None)
        )
    ).all()
    if not looks_degraded([(row.domain, bool(row.unreachable)) for row in probed]):
        return False
    options = JobOptions.from_json(job.options).engine
    for row in probed:
        results = degraded_results(list(row.emails), row.outcome, options)
        rows = [{"email": email, "result": result.to_dict()} for email, result in results.items()]
        store.rewrite_results(session, job.id, rows)
    store.mark_degraded(session, job.id)
    return True


def looks_degraded(groups: list[tuple[str, bool]]) -> bool:
    """``(domain, unreachable)`` of every probed group: enough domains, and not one answered."""
    dark = {domain for domain, unreachable in groups if unreachable}
    return len(dark) >= DEGRADED_MIN_GROUPS and all(unreachable for _, unreachable in groups)
