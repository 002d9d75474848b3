"""Messages of validation jobs: to the workers (``services.broker``) and to waiting web requests.

Groups go to their domain's lane (``services.probing.lanes``), with one ``drain_lane`` message per lane that
nobody holds and has none on its way, so every group of one domain, whatever job or account it belongs
to, is probed by the lane's worker over shared sessions.

A waiting request must never be woken for a job whose result would roll back, so its signal is sent
after commit too. Both are best effort: the record is in Postgres, and the beat sweeper
(``services.probing.sweep``) re-sends anything whose message was lost; a waiter reads Postgres at its timeout.
"""

from __future__ import annotations

import logging
import time

from redis.exceptions import RedisError
from sqlalchemy.orm import Session

from services.broker import DRAIN_LANE_TASK, after_commit, send_task
from services.probing import lanes
from services.probing.lanes import LaneRef
from services.redis_client import get_redis, key
from settings import BLOCKING_SLICE

log = logging.getLogger(__name__)
DONE_SIGNAL_TTL = 600


def send_groups(session: Session, refs: list[LaneRef]) -> None:
    """After commit, the groups to their lanes."""
    if refs:
        after_commit(session, lambda: to_lanes(refs))


def to_lanes(refs: list[LaneRef]) -> None:
    """Queue ``refs`` in their lanes and wake each lane that has no drain message on its way."""
    try:
        woken = lanes.push(refs)
    except RedisError:
        log.warning("%d groups not queued in lanes; the sweeper re-sends them", len(refs), exc_info=True)
        return
    for domain in woken:
        wake(domain)


def wake(domain: str) -> None:
    """One ``drain_lane`` message; if it cannot be sent, the lane's mark goes so the next push retries."""
    if not send_task(DRAIN_LANE_TASK, domain):
        lanes.unsend(domain)


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
    thread costs no CPU). Callers loop and read Postgres between slices: the signal wakes one waiter only."""
    timeout = min(seconds, BLOCKING_SLICE)
    if timeout <= 0:
        return False
    try:
        return get_redis().blpop([_done_key(public_id)], timeout=timeout) is not None
    except RedisError:
        # Redis gone for a moment (a restart): the job was charged and runs on from Postgres, so the
        # waiter sits out the slice and reads Postgres as usual instead of answering 503 to a client
        # who would retry and pay twice. Its signal may be lost with Redis: the Postgres read catches it.
        log.warning("no completion signal for %s: Redis unreachable; reading Postgres", public_id)
        time.sleep(timeout)
        return False


def _done_key(public_id: str) -> str:
    return key("job-done", public_id)
