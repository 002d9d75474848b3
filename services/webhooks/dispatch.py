"""The after-commit nudge that makes a new event's first delivery attempt immediate.

Only ids cross the broker, and only after the transaction that wrote the rows has committed, so a worker
never looks for a delivery that is not there yet. The nudge is an optimisation, not the record: when it
cannot be sent (Redis down, broker full) the error is logged and the beat sweeper picks the due rows up on
its next tick. A nudge can also arrive twice or late; the delivery step locks and re-checks each row, so
that costs nothing but a query.
"""

from __future__ import annotations

import logging
import time

from kombu import pools
from kombu.exceptions import OperationalError
from sqlalchemy import event
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)
DELIVER_EVENT_TASK = "tasks.webhooks.deliver_event"
_PENDING = "webhook_nudges"
# After a failed publish, skip nudges for this long: while Redis is down each publish costs seconds of
# connection retries, and the requests that emit events should not pay that one after another.
BACKOFF_SECONDS = 30.0
# The nudge's own broker connection fails fast: no reconnection loop (kombu's default sleeps about 6 s
# before giving up on a refused connection) and one-second socket timeouts (a Redis that accepts but does
# not answer would otherwise hold the request for good). Workers keep the app's patient defaults.
NUDGE_TRANSPORT_OPTIONS = {"max_retries": 0, "socket_connect_timeout": 1.0, "socket_timeout": 1.0}
_skip_until = 0.0


def nudge_after_commit(session: Session, event_id: str) -> None:
    """Ask a worker to deliver ``event_id`` once ``session`` commits (nothing happens on rollback)."""
    pending: set[str] | None = session.info.get(_PENDING)
    if pending is None:
        pending = session.info[_PENDING] = set()
        event.listen(session, "after_commit", _send_pending, once=True)
        event.listen(session, "after_rollback", _forget_pending, once=True)
    pending.add(event_id)


def _send_pending(session: Session) -> None:
    for event_id in sorted(session.info.pop(_PENDING, ())):
        send_nudge(event_id)


def _forget_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


def send_nudge(event_id: str) -> bool:
    """Publish one ``deliver_event`` message; False (and a log line) when the broker is unreachable.

    ``ignore_result`` matters: without it Celery subscribes to the result backend first, which retries
    for twenty seconds and then raises an error that is not a connection error.
    """
    from workers.celery_app import app  # noqa: PLC0415 - the Celery app is built only by processes that send

    global _skip_until  # noqa: PLW0603 - one breaker per process is the point
    if time.monotonic() < _skip_until:
        return False
    try:
        with (
            app.connection_for_write(transport_options=NUDGE_TRANSPORT_OPTIONS) as connection,
            pools.producers[connection].acquire(block=True) as producer,
        ):
            app.send_task(
                DELIVER_EVENT_TASK, args=[event_id], retry=False, ignore_result=True, producer=producer
            )
    except (OperationalError, OSError):
        _skip_until = time.monotonic() + BACKOFF_SECONDS
        log.warning("webhook nudge for %s not sent; the sweeper will deliver it", event_id, exc_info=True)
        return False
    return True
