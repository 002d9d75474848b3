"""Messages to the workers: sent only after the transaction that justifies them, and never waited on.

A worker must never look for a row that is not committed yet, and nothing may be sent for a change that
rolls back; so ``after_commit`` queues an action on the session and fires it from its ``after_commit``
event (dropped on rollback). Sending is best effort everywhere: the record is in Postgres, and each
capability's beat sweeper re-sends whatever a lost message left undone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from celery import Celery
from kombu import pools
from kombu.entity import Queue
from kombu.exceptions import OperationalError
from sqlalchemy import event
from sqlalchemy.orm import Session

from settings import Settings, get_settings

log = logging.getLogger(__name__)
DRAIN_LANE_TASK = "tasks.probing.drain_lane"
PLAN_JOB_TASK = "tasks.probing.plan_job"
DELIVER_EVENT_TASK = "tasks.webhooks.deliver_event"
SEND_DUE_MAIL_TASK = "tasks.mail.send_due_mail"
DELIVER_ONE_TASK = "tasks.webhooks.deliver_one"
DELIVER_DUE_TASK = "tasks.webhooks.deliver_some_due"
SWEEP_DELIVERIES_TASK = "tasks.webhooks.sweep_due_deliveries"
COMPARE_RUNS_TASK = "tasks.monitoring.compare_runs"
# Three queues keep slow network work from starving bookkeeping: ``probes`` (SMTP/DNS, I/O bound, served
# by a gevent pool where every socket call carries its own timeout because that pool enforces no task time
# limit), ``webhooks`` (POSTs to customers' receivers, each at most 30 s, capped per account) and
# ``default`` (database work: results, progress, events, the other sweeps).
TASK_QUEUES = (Queue("default"), Queue("probes"), Queue("webhooks"))  # type: ignore[no-untyped-call]
WEBHOOK_TASKS = (DELIVER_EVENT_TASK, DELIVER_ONE_TASK, DELIVER_DUE_TASK, SWEEP_DELIVERIES_TASK)
TASK_ROUTES = {DRAIN_LANE_TASK: {"queue": "probes"}} | {name: {"queue": "webhooks"} for name in WEBHOOK_TASKS}
_PENDING = "broker_after_commit"
# The publisher's own connection fails fast: no reconnection loop (kombu's default sleeps about 6 s before
# giving up on a refused connection) and one-second socket timeouts (a Redis that accepts but does not
# answer would otherwise hold a web request for good). Workers keep the app's patient defaults.
FAIL_FAST = {"max_retries": 0, "socket_connect_timeout": 1.0, "socket_timeout": 1.0}


def message_config(settings: Settings) -> dict[str, Any]:
    """What publishers and workers must agree on: broker, key prefix, queues, routes, serialisation."""
    return {
        "broker_url": settings.redis_url,
        # Redis redelivers an unacknowledged task only after this timeout: keep it above the longest task
        # (a shorter one hands a running plan or lane turn to a second worker). A killed worker's messages
        # wait that long; its work does not: liveness re-sends it from Postgres (``services.probing``).
        # The key prefix isolates concurrent test runs (and tenants of a shared Redis) from each other.
        "broker_transport_options": {
            "visibility_timeout": 3600,
            "global_keyprefix": settings.redis_key_prefix,
        },
        "task_queues": TASK_QUEUES,
        "task_default_queue": "default",
        "task_routes": TASK_ROUTES,
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_send_sent_event": True,  # Flower shows tasks from the moment they are sent
    }


@cache
def publisher() -> Celery:
    """This process's publishing app; the worker app (``workers.celery_app``) shares its message config."""
    app = Celery("verimail")
    app.conf.update(message_config(get_settings()))
    return app


def after_commit(session: Session, action: Callable[[], object]) -> None:
    """Run ``action`` once ``session`` commits; forget it on rollback."""
    pending: list[Callable[[], object]] | None = session.info.get(_PENDING)
    if pending is None:
        pending = session.info[_PENDING] = []
        event.listen(session, "after_commit", _run_pending, once=True)
        event.listen(session, "after_rollback", _forget_pending, once=True)
    pending.append(action)


def send_after_commit(session: Session, task_name: str, *args: object) -> None:
    """Publish ``task_name(*args)`` once ``session`` commits (nothing on rollback)."""
    after_commit(session, lambda: send_task(task_name, *args))


def send_task(task_name: str, *args: object) -> bool:
    """Publish one message now; False (and a log line) when the broker is unreachable."""
    return send_tasks(task_name, [args])[0]


def send_tasks(task_name: str, args_each: Sequence[Sequence[object]]) -> list[bool]:
    """Publish one message per item of ``args_each`` now, in order, over one connection and producer (one
    of each per message cost a list's 96 lane wake-ups 0.1 s); per message, was it sent (a log line for
    those the broker did not take)?

    ``ignore_result`` matters: without it Celery subscribes to the result backend first, which retries
    for twenty seconds and then raises an error that is not a connection error.
    """
    app, sent = publisher(), [False] * len(args_each)
    if not args_each:
        return sent  # no connection for nothing (a push that woke no seat)
    try:
        with (
            app.connection_for_write(transport_options=FAIL_FAST) as connection,
            pools.producers[connection].acquire(block=True) as producer,
        ):
            for index, args in enumerate(args_each):
                app.send_task(task_name, args=list(args), retry=False, ignore_result=True, producer=producer)
                sent[index] = True
    except (OperationalError, OSError):
        unsent = [args for args, done in zip(args_each, sent, strict=True) if not done]
        log.warning("%s not sent for %s; its sweeper will do the work", task_name, unsent, exc_info=True)
    return sent


def _run_pending(session: Session) -> None:
    for action in session.info.pop(_PENDING, []):
        action()


def _forget_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)
