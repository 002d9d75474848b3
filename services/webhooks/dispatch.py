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

from sqlalchemy.orm import Session

from services.broker import DELIVER_EVENT_TASK, after_commit, send_task

log = logging.getLogger(__name__)
# After a failed publish, skip nudges for this long: while Redis is down each publish costs seconds of
# connection retries, and the requests that emit events should not pay that one after another.
BACKOFF_SECONDS = 30.0
_skip_until = 0.0


def nudge_after_commit(session: Session, event_id: str) -> None:
    """Ask a worker to deliver ``event_id`` once ``session`` commits (nothing happens on rollback)."""
    after_commit(session, lambda: send_nudge(event_id))


def send_nudge(event_id: str) -> bool:
    """Publish one ``deliver_event`` message unless a recent failure says the broker is down."""
    global _skip_until  # noqa: PLW0603 - one breaker per process is the point
    if time.monotonic() < _skip_until:
        return False
    if not send_task(DELIVER_EVENT_TASK, event_id):
        _skip_until = time.monotonic() + BACKOFF_SECONDS
        return False
    return True
