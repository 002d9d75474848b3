"""Messages to the workers and to waiting web requests, sent only after the transaction that justifies them.

A worker must never look for a group that is not committed yet, and a waiting request must never be
woken for a job whose result would roll back; so everything here is queued on the session and fired by
its ``after_commit`` (dropped on rollback). Sending is best effort: the record is in Postgres, and the
beat sweeper (``services.jobs.sweep``) re-sends anything whose message was lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from kombu.exceptions import OperationalError
from redis.exceptions import RedisError
from sqlalchemy import event
from sqlalchemy.orm import Session

from services.redis_client import get_redis, key

log = logging.getLogger(__name__)
PROBE_GROUP_TASK = "tasks.jobs.probe_group"
PLAN_JOB_TASK = "tasks.jobs.plan_job"
DONE_SIGNAL_TTL = 600
WAIT_SLICE = 2.0  # seconds of one BLPOP, well under the Redis client's socket timeout
_PENDING = "job_after_commit"


def after_commit(session: Session, action: Callable[[], object]) -> None:
    """Run ``action`` once ``session`` commits; forget it on rollback."""
    pending: list[Callable[[], object]] | None = session.info.get(_PENDING)
    if pending is None:
        pending = session.info[_PENDING] = []
        event.listen(session, "after_commit", _run_pending, once=True)
        event.listen(session, "after_rollback", _forget_pending, once=True)
    pending.append(action)


def _run_pending(session: Session) -> None:
    for action in session.info.pop(_PENDING, []):
        action()


def _forget_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


def send_task(name: str, *args: object) -> bool:
    """Publish one message; False (and a log line) when the broker is unreachable."""
    from workers.celery_app import app  # noqa: PLC0415 - the Celery app is built only by processes that send

    try:
        app.send_task(name, args=list(args), retry=False)
    except (OperationalError, OSError):
        log.warning("%s%s not sent; the job sweeper will send it again", name, args, exc_info=True)
        return False
    return True


def send_groups(session: Session, group_ids: list[int]) -> None:
    """After commit, one ``probe_group`` message per group."""
    if group_ids:

        def send() -> None:
            for group_id in group_ids:
                send_task(PROBE_GROUP_TASK, group_id)

        after_commit(session, send)


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
    """Block up to ``seconds``, at most ``WAIT_SLICE``, for the job's completion signal (a waiting web
    thread costs no CPU). Callers loop and read Postgres between slices: the signal wakes one waiter only,
    and the Redis client's socket timeout (5 s by default in redis-py 8) does not stretch for a blocking
    command, so a longer BLPOP would fail as "Redis unreachable" (a 503)."""
    timeout = min(seconds, WAIT_SLICE)
    return timeout > 0 and get_redis().blpop([_done_key(public_id)], timeout=timeout) is not None


def _done_key(public_id: str) -> str:
    return key("job-done", public_id)
