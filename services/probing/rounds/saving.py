"""Saving lanes' rounds: every probed group of every job in a handful of multi-row statements.

A round of small groups (batches of 100 spread over 80 domains give groups of one or two addresses) saved
group by group would spend most of its time in round trips; here the guards of ``services.jobs.store``
hold for all groups of the rounds at once:

- items settle only while ``pending`` or ``interim`` (one UPDATE over every job's rows; rows of one address,
  duplicates included, share its normalised ``email`` and settle together), and the counters of each job
  grow by the rows that statement changed (one UPDATE over every job);
- deferred addresses (a temporary failure the job asked to retry) get their answer for now (``interim``,
  one UPDATE, only when there are some) and stay in their group, which goes back to pending until its
  retry time;
- a group's row is written only under its latest claim (``attempts`` still ours, still ``running``);
- each job completes once (the status guard), with its event; the others get their window refilled, only
  those with groups still waiting (one query says which).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core import clock
from models.jobs import GroupState, JobGroup, ValidationJob
from services.jobs import store
from services.jobs.options import result_row
from services.jobs.store import Claim
from services.probing.jobs import completion, dispatch
from services.probing.rounds.probe import GroupVerdicts


def save_round(session: Session, saved: Sequence[tuple[Claim, GroupVerdicts]]) -> None:
    """Save the verdicts of claimed groups, in one transaction."""
    if not saved:
        return
    job_ids = sorted({claim.job_id for claim, _ in saved})
    store.by_keys(session)
    # Rounds of different lanes share jobs (a batch spans 80 domains): lock the jobs' rows first, in id
    # order, so two rounds serialise on them instead of deadlocking on the counters in another order.
    session.execute(
        select(ValidationJob.id)
        .where(ValidationJob.id.in_(job_ids))
        .order_by(ValidationJob.id)
        .with_for_update()
    )
    store.add_counts(session, store.settle_items(session, _rows(saved, settled=True)))
    store.record_interim(session, list(_rows(saved, settled=False)))
    store.save_groups(session, [_group_save(claim, verdicts) for claim, verdicts in saved])
    completed = completion.complete(session, job_ids)
    for job_id in _waiting(session, [job for job in job_ids if job not in completed]):
        dispatch.fill_window(session, job_id)


def _rows(saved: Sequence[tuple[Claim, GroupVerdicts]], *, settled: bool) -> Iterator[dict[str, object]]:
    """Item rows of the settled results, or of the answers for now (``interim``); a group given up on
    (``GroupVerdicts.verdicts`` false) has its answers marked as no verdict."""
    now = clock.now()
    for claim, verdicts in saved:
        for email, result in (verdicts.settled if settled else verdicts.interim).items():
            yield {"job": claim.job_id, **result_row(email, result, now, verdict=verdicts.verdicts)}


def _group_save(claim: Claim, verdicts: GroupVerdicts) -> store.GroupSave:
    return store.GroupSave(
        claim.group_id,
        claim.attempt,
        verdicts.unreachable,
        verdicts.outcome,
        verdicts.deferred,
        verdicts.retry_at,
    )


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
