"""Messages of validation jobs: groups to the workers (``services.broker``), completion to waiting requests.

A job keeps up to ``JOB_WINDOW`` of its groups in lanes at once (``fill_window``). Groups go to the lanes
of their domain's MX address (``services.probing.rounds.routes``, ``services.probing.rounds.lanes``), with one
``drain_lane`` message per seat the lane's refs can keep busy that nobody holds and has none on its way,
so every group of the domains behind one mail server, whatever job or account it belongs to, is probed by
the lane's workers over shared sessions.

A waiting request must never be woken for a job whose result would roll back, so its signal is sent
after commit too. Both are best effort: the record is in Postgres, and the beat sweeper
(``services.probing.upkeep.sweep``) re-sends anything whose message was lost; a waiter reads Postgres at its
timeout.
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core import clock
from models.jobs import GroupState, JobGroup
from services.broker import DRAIN_LANE_TASK, after_commit, send_tasks
from services.jobs import store
from services.jobs.store import QueuedGroup
from services.probing.rounds import lanes, routes
from services.probing.rounds.lanes import LaneRef
from services.redis_client import get_redis, key
from settings import BLOCKING_SLICE, get_settings

log = logging.getLogger(__name__)
DONE_SIGNAL_TTL = 600


def fill_window(session: Session, job_id: int) -> None:
    """Keep up to ``JOB_WINDOW`` groups of this job in lanes, so one big list cannot flood them ahead of
    everyone else's batches. Two workers refilling at once may overshoot by a few: harmless."""
    in_flight = session.scalar(
        select(func.count())
        .select_from(JobGroup)
        .where(
            JobGroup.job_id == job_id, JobGroup.state.in_([GroupState.QUEUED.value, GroupState.RUNNING.value])
        )
    )
    room = get_settings().jobs.window - (in_flight or 0)
    if room > 0:
        send_due_groups(session, job_id, room)


def send_due_groups(session: Session, job_id: int, limit: int) -> None:
    """Mark up to ``limit`` due pending groups of the job queued and, after commit, push them to their
    lanes."""
    queued = store.queue_due_groups(session, job_id, limit, clock.now())
    if queued:
        after_commit(session, lambda: to_lanes(queued))


def lane_refs(groups: list[QueuedGroup]) -> list[LaneRef]:
    """Each group's ref, routed to its lane. Test-mode groups never ask DNS (``verifier.sandbox`` answers
    them): they wait in test lanes of their own domain, never behind a live list."""
    addresses = routes.mx_addresses(group.domain for group in groups if group.livemode)
    refs = []
    for group in groups:
        lane = _lane(group, addresses)
        seats = routes.seats_for(lane)
        refs.append(LaneRef(group.group_id, lane, group.account_id, group.size, seats, group.domain))
    return refs


def _lane(group: QueuedGroup, addresses: dict[str, str | None]) -> str:
    if not group.livemode:
        return routes.test_lane(group.domain)
    return routes.lane_for(group.domain, addresses[group.domain])


def to_lanes(groups: list[QueuedGroup]) -> None:
    """Queue the groups in their lanes and wake each lane that has no drain message on its way."""
    refs = lane_refs(groups)
    try:
        woken = lanes.push(refs)
    except RedisError:
        log.warning("%d groups not queued in lanes; the sweeper re-sends them", len(refs), exc_info=True)
        return
    wake(*woken)


def wake(*seats: str) -> None:
    """One ``drain_lane`` message per seat, every lane's first seats first (a lane's later seats wait for
    the interval between its new sessions anyway); a seat whose message cannot be sent loses its mark,
    so the next push retries."""
    ordered = sorted(seats, key=lanes.seat_number)
    for seat, sent in zip(ordered, send_tasks(DRAIN_LANE_TASK, [(seat,) for seat in ordered]), strict=True):
        if not sent:
            lanes.drain_not_sent(seat)


def signal_done(session: Session, public_id: str) -> None:
    """After commit, wake whoever waits for ``public_id`` (``wait_done``); a late waiter still sees it."""

    def push() -> None:
        try:
            pipe = get_redis().pipeline()
            pipe.lpush(_done_key(public_id), "done")
            pipe.expire(_done_key(public_id), DONE_SIGNAL_TTL)
            pipe.execute()
        except RedisError:
            log.warning("completion of %s not signalled; its waiter reads Postgres at timeout", public_id)

    after_commit(session, push)


def wait_done(public_id: str, seconds: float) -> bool:
    """Block up to ``seconds``, at most ``BLOCKING_SLICE``, for the job's completion signal (a waiting web
    thread costs no CPU). Callers loop and read Postgres between slices: the signal wakes one waiter only.
    Redis unreachable raises (the caller stops waiting: ``services.validation.submit.wait``)."""
    timeout = min(seconds, BLOCKING_SLICE)
    if timeout <= 0:
        return False
    return get_redis().blpop([_done_key(public_id)], timeout=timeout) is not None


def _done_key(public_id: str) -> str:
    return key("job-done", public_id)
