"""Saving a lane's round: every settled group of every job in a handful of multi-row statements.

``runs.save`` costs about seven statements per group; a round of small groups (batches of 100 spread over
80 domains give groups of one or two addresses) would spend most of its time in those round trips. Here
the same guards hold, for all groups of the round at once:

- items settle only while ``pending`` or ``interim`` (one UPDATE over every job's rows; rows of one address,
  duplicates included, share its normalised ``email`` and settle together), and the counters of each job
  grow by the rows that statement changed (one UPDATE over every job);
- a group's row is marked done only under its latest claim (``attempts`` still ours, still ``running``);
- each job completes once (the status guard), with its event; the others get their window refilled, only
  those with groups still waiting (one query says which).

Groups with deferred addresses (their interim answers, ``store.record_interim``) go through
``runs.save`` one by one: deferral is rare, and its rules live there.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from core import clock
from models.jobs import GroupState, JobGroup, ValidationJob
from services.jobs import store
from services.jobs.options import json_text, result_row
from services.probing import completion, runs
from services.probing.probe import GroupVerdicts

_GROUPS_DONE = text("""
UPDATE job_groups g SET state = 'done', finished_at = :now, lease_until = NULL,
       unreachable = CASE WHEN c.unreachable IS NULL THEN g.unreachable ELSE c.unreachable END,
       outcome = CASE WHEN c.unreachable IS NULL THEN g.outcome ELSE c.outcome END
FROM jsonb_to_recordset(CAST(:claims AS jsonb)) AS c(id bigint, attempt int, unreachable boolean,
                                                      outcome jsonb)
WHERE g.id = c.id AND g.attempts = c.attempt AND g.state = 'running'
""")


def save_round(session: Session, done: Sequence[tuple[runs.Claim, GroupVerdicts]]) -> None:
    """Save claims whose verdicts settle every address (none deferred), in one transaction."""
    if not done:
        return
    job_ids = sorted({claim.job_id for claim, _ in done})
    # Rounds of different lanes share jobs (a batch spans 80 domains): lock the jobs' rows first, in id
    # order, so two rounds serialise on them instead of deadlocking on the counters in another order.
    session.execute(
        select(ValidationJob.id)
        .where(ValidationJob.id.in_(job_ids))
        .order_by(ValidationJob.id)
        .with_for_update()
    )
    settled = (
        {"job": claim.job_id, **result_row(email, result)}
        for claim, verdicts in done
        for email, result in verdicts.settled.items()
    )
    store.add_counts(session, store.settle_items(session, settled))
    session.execute(
        _GROUPS_DONE, {"now": clock.now(), "claims": json_text([_group_row(c, v) for c, v in done])}
    )
    completed = completion.complete(session, job_ids)
    for job_id in _waiting(session, [job for job in job_ids if job not in completed]):
        runs.fill_window(session, job_id)


def _group_row(claim: runs.Claim, verdicts: GroupVerdicts) -> dict[str, object]:
    return {
        "id": claim.group_id,
        "attempt": claim.attempt,
        "unreachable": verdicts.unreachable,
        "outcome": verdicts.outcome,
    }


def _waiting(session: Session, job_ids: list[int]) -> list[int]:
    """Jobs of ``job_ids`` that still have groups waiting to be sent (a batch usually has none)."""
    if not job_ids:
        return []
    return list(
        session.scalars(
            select(JobGroup.job_id)
            .where(JobGroup.job_id.in_(job_ids), JobGroup.state == GroupState.PENDING.value)
            .group_by(JobGroup.job_id)
            .having(func.count() > 0)
        )
    )
