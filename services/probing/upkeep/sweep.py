"""The job sweeper, run by beat every ``JOB_SWEEP_SECONDS`` (and by a worker the moment the stores answer
again after a fault cut its work short, ``services.probing.upkeep.recovery``): Postgres says what is owed,
this re-sends it.

- A group claimed under a lane hold that is gone (its worker was killed, or its drain ended on an error
  before letting go: ``services.probing.upkeep.holds``) goes back to ``pending`` at once, without waiting for
  its
  lease; and a ``queued`` group missing from its lane (a Redis restarted empty, refs popped by a worker that
  died), or whose lane nobody owns and no drain message is on its way to, is queued again and its lane
  woken (``revive``). A killed worker therefore delays its groups by at most a hold (``HOLD_SECONDS``):
  the first live worker to see it gone deletes its holds and sweeps at once (``liveness``), as does a
  worker starting on its host; it loses nothing: its results were never written, or were written once.
- The timers stay as the last resort, for whatever Redis could not tell (it was unreachable): a group
  whose worker died (``running`` past its lease) or whose message got lost (``queued`` for longer than
  ``JOB_REQUEUE_SECONDS``) goes back to ``pending``.
- Every job with due pending groups (those just reset, greylisted ones whose retry time came) gets its
  window refilled.
- A job submitted but never planned (its plan message lost) gets its plan message again: after the
  requeue time on the beat's clock, at once when a worker notices a fault end (``sweep(after_fault=True)``).
- A job left ``uploading`` for ``ABANDONED_UPLOAD`` (its web process died between storing and opening it)
  is opened if its charge went through (the client paid; a retry with its Idempotency-Key finds it) and
  deleted otherwise. Trade-off: a web process stalled that long between store and charge would find its
  job gone and answer 500 after charging; ten minutes is far beyond any real pause there.

The trade-off: a ``queued`` group that is merely waiting behind a long queue is re-sent after the requeue
time too; the duplicate message finds the group claimed or done and costs one UPDATE.

One sweep runs at a time across the fleet (a Redis lock, held by no database connection: a sweep's own
transactions must find a connection free in a process of one, ``DATABASE_POOL_SIZE=1``): beat ticks every
``JOB_SWEEP_SECONDS`` whatever a sweep's length, and a sweep of a large backlog outlasts that. Overlapping
sweeps each redid the whole backlog, queued behind each other's row locks and took the worker's slots
(measured with 141 due jobs on a loaded machine: six sweeps at once, 3 to 11 s each). A tick that finds a
sweep running is dropped, since that sweep or the next tick covers it; a sweep asked for directly (after a
fault) waits its turn, at most until a dead sweeper's lock runs out.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from redis.exceptions import LockError, RedisError
from redis.lock import Lock
from sqlalchemy import func, select

from core import clock
from models.jobs import GroupState, JobGroup, JobStatus, ValidationJob
from models.session import transaction
from services.broker import PLAN_JOB_TASK, send_after_commit
from services.jobs import store
from services.jobs.store import QueuedGroup
from services.probing.jobs import dispatch
from services.probing.rounds import lanes
from services.probing.upkeep import holds
from services.redis_client import get_redis, key
from settings import get_settings

log = logging.getLogger(__name__)
ABANDONED_UPLOAD = timedelta(minutes=10)
# A group marked queued has its ref pushed right after its transaction commits: younger than this, it is
# left to that push (were it pushed here too, the duplicate would cost one failed claim).
QUEUED_GRACE = timedelta(seconds=2)


# How long a sweep holds its turn: about the longest sweep measured (11 s under a backlog), and all that a
# sweeper killed while holding it costs the next one (a worker that starts sweeps at once). A sweep that
# outlasts it may overlap the next, as every sweep did before turns: slower, never wrong.
SWEEP_TURN_SECONDS = 12


def sweep_turn() -> Lock:
    """The fleet's one turn to sweep (a Redis lock that runs out if its holder dies)."""
    turn: Lock = get_redis().lock(key("job-sweep"), timeout=SWEEP_TURN_SECONDS)
    return turn


def sweep_unless_running() -> int:
    """``sweep`` for a beat tick: nothing (0) if a sweep is running already anywhere."""
    turn = sweep_turn()
    if not turn.acquire(blocking=False):
        log.info("a job sweep is running already: this tick is dropped")
        return 0
    try:
        return _sweep(after_fault=False)
    finally:
        _release(turn)


def sweep(after_fault: bool = False) -> int:
    """Reset abandoned groups, refill windows, re-plan lost jobs; the number of jobs touched. Waits for
    a sweep running elsewhere to end first.

    On its own clock a ``queued`` group is looked for in its lane once ``QUEUED_GRACE`` old, and an
    unplanned job's plan is sent again after the requeue time (it may only be waiting behind others).
    ``after_fault`` (a store came back, a broker connection was made again) trusts nothing in flight:
    every push and every plan message of the moments before may have been lost, so both are re-sent at
    once (a duplicate plan finds its rows taken or the job planned and changes nothing).
    """
    turn = sweep_turn()
    if not turn.acquire(blocking=True, blocking_timeout=SWEEP_TURN_SECONDS):
        log.warning("the job sweep's turn was not given back in %s s: sweeping anyway", SWEEP_TURN_SECONDS)
    try:
        return _sweep(after_fault)
    finally:
        _release(turn)


def _release(turn: Lock) -> None:
    """Give the turn back; one that ran out (a sweep longer than its time) is no longer ours to give."""
    try:
        turn.release()
    except LockError:
        log.warning("a job sweep outlasted its turn of %s s", SWEEP_TURN_SECONDS)


def _sweep(after_fault: bool) -> int:
    now = clock.now()
    stale = now - timedelta(seconds=get_settings().jobs.requeue_after)
    planned = plan_again(now, now if after_fault else stale)
    revive(now, timedelta(0) if after_fault else QUEUED_GRACE)
    with transaction() as session:
        store.requeue_abandoned(session, now, stale)
        due = select(JobGroup.job_id).where(
            JobGroup.state == GroupState.PENDING.value, JobGroup.next_attempt_at <= now
        )
        job_ids = list(session.scalars(due.distinct()))
        for job_id in job_ids:
            dispatch.fill_window(session, job_id)
    return planned + len(job_ids)


def plan_again(now: datetime, lost_before: datetime) -> int:
    """Plan messages for the jobs never planned since before ``lost_before`` and for the abandoned uploads
    that were paid for (opened; the unpaid ones deleted); how many were sent. A transaction of its own,
    first: a client's list does not wait for the windows of every due job to be refilled (a sweep of a
    large backlog takes seconds), nor fail with them."""
    lost = select(ValidationJob.id).where(
        ValidationJob.status == JobStatus.QUEUED.value,
        ValidationJob.planned_at.is_(None),
        ValidationJob.created_at < lost_before,
    )
    with transaction() as session:
        unplanned = list(session.scalars(lost)) + store.expire_uploads(session, now, now - ABANDONED_UPLOAD)
        for job_id in unplanned:
            send_after_commit(session, PLAN_JOB_TASK, job_id)
    return len(unplanned)


def revive(now: datetime, grace: timedelta = QUEUED_GRACE) -> None:
    """Claims whose hold is gone back to ``pending``, and ``queued`` groups missing from their lane queued
    again, at once rather than after their lease or requeue time; skipped while Redis is unreachable, and
    the claims left alone while a Redis just restarted may still be waiting for their holders' renewal."""
    try:
        if holds.reasserted():
            take_back_orphans(now)
        requeue_lost(now - grace)
    except RedisError as error:
        log.warning("lanes not checked, Redis unreachable (the timers remain): %s", error)


def take_back_orphans(now: datetime) -> int:
    """Running groups whose claim's lane owner is not in Redis any more, back to ``pending``; how many."""
    running = select(JobGroup.id, JobGroup.domain, JobGroup.held_by).where(
        JobGroup.state == GroupState.RUNNING.value, JobGroup.held_by.is_not(None), JobGroup.lease_until >= now
    )
    with transaction() as session:
        rows = [
            (row.id, row.held_by, lanes.lane_of(row.held_by) or row.domain)
            for row in session.execute(running)
        ]
        owners = lanes.owners(lane for _, _, lane in rows)
        gone = [(group, held_by) for group, held_by, lane in rows if owners[lane] != held_by]
        store.take_back(session, gone)
    if gone:
        log.warning("%d groups taken back from lane owners that are gone", len(gone))
    return len(gone)


def requeue_lost(before: datetime) -> int:
    """``queued`` (since ``before``) groups missing from their lanes pushed again, lanes nobody owns woken;
    how many lanes were woken. A group popped by a live worker a moment ago is pushed again too: its
    second claim finds it taken and costs one UPDATE."""
    queued = _queued_since(before)
    woken = lanes.revive(dispatch.lane_refs(queued)) if queued else []
    dispatch.wake(*woken)
    return len(woken)


def _queued_since(before: datetime) -> list[QueuedGroup]:
    stmt = (
        select(
            JobGroup.id,
            JobGroup.domain,
            func.cardinality(JobGroup.emails),
            ValidationJob.account_id,
            ValidationJob.livemode,
        )
        .join(ValidationJob, ValidationJob.id == JobGroup.job_id)
        .where(JobGroup.state == GroupState.QUEUED.value, JobGroup.enqueued_at < before)
        .order_by(JobGroup.id)
    )
    with transaction() as session:
        return [QueuedGroup(*row) for row in session.execute(stmt)]
