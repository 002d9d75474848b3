"""Events queued for event listeners (``python -m verimail_webhooks listen``), written by ``events.emit``.

A listener is live until its ``expires_at``; an expired one gets nothing new and its queue goes with it
the next time its account opens a listener (``listeners.open_listener``). Like deliveries, the queue rows
are written in the transaction of the change, so a listener never sees an event of a change that rolled
back, and never misses one that committed while it was live.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from models.listeners import EventListener, ListenerEvent
from models.webhooks import Event


def live_listeners(session: Session, account_id: int, event_type: str, livemode: bool) -> list[str]:
    """The ids of the account's live listeners of this mode that want ``event_type``."""
    stmt = select(EventListener.id).where(
        EventListener.account_id == account_id,
        EventListener.livemode == livemode,
        EventListener.expires_at > clock.now(),
        EventListener.events.contains([event_type]),
    )
    return list(session.scalars(stmt))


def enqueue(session: Session, event: Event, listener_ids: list[str]) -> None:
    """``event`` waits for each listener until it acknowledges it."""
    if not listener_ids:
        return
    session.flush()  # the event row first: no relationship tells the unit of work to order the two inserts
    session.add_all(ListenerEvent(listener_id=listener_id, event_id=event.id) for listener_id in listener_ids)
