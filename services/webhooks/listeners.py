"""Event listeners: ``python -m verimail_webhooks listen --forward-to URL`` on a developer's machine pulls
its account's events over the API and forwards them, signed, to a local URL (modelled on Stripe's
``stripe listen``). The service never connects to the developer: production's outbound rules
(``addresses``: public HTTPS hosts only) stay exactly as they are.

Who may: a key with ``webhooks:read``, for its own account and mode only (a test key's listener gets
test-mode events; another account's or mode's listener id is "not found"). A listener lives while it is
polled: every poll moves ``expires_at`` to ``IDLE`` from now; one left unpolled that long gets nothing new
and is deleted, with its queue, when its account next opens a listener. Its signing secret is made here
and shown once; the service keeps no copy, because only the listening process signs (it holds the key
that reads the events anyway).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import ColumnElement, and_, delete, func, select
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.listeners import EventListener, ListenerEvent
from models.session import transaction
from models.webhooks import Event
from services import audit
from services.auth import Actor
from services.errors import NotFound
from services.webhooks.endpoints import check_events, new_secret
from services.webhooks.errors import ListenerLimitReached

IDLE = timedelta(minutes=10)
MAX_LISTENERS = 10
PAGE = 100


@dataclass(frozen=True)
class OpenedListener:
    """A new listener with its signing secret (shown once, kept nowhere)."""

    listener: EventListener
    secret: str = field(repr=False)


@dataclass(frozen=True)
class Pending:
    """A page of events waiting for a listener, oldest first, and the listener as the poll left it."""

    listener: EventListener
    events: list[Event]
    has_more: bool


def open_listener(actor: Actor, events: tuple[str, ...]) -> OpenedListener:
    """Open a listener of the caller's account and mode for ``events`` (known types)."""
    now = clock.now()
    with transaction() as session:
        # Lock the account row so two concurrent openings cannot both take the last place.
        session.get_one(Account, actor.account.id, with_for_update=True)
        session.execute(delete(EventListener).where(of_caller(actor), EventListener.expires_at <= now))
        if (session.scalar(select(func.count()).where(of_caller(actor))) or 0) >= MAX_LISTENERS:
            raise ListenerLimitReached(MAX_LISTENERS)
        listener = EventListener(
            id=f"lsn_{secrets.token_hex(16)}",
            account_id=actor.account.id,
            livemode=actor.livemode,
            events=list(check_events(events)),
            key_id=actor.key_id,
            created_at=now,
            expires_at=now + IDLE,
        )
        session.add(listener)
        _audit(session, actor, AuditEvent.LISTENER_OPENED, listener, events=listener.events)
        return OpenedListener(listener, new_secret())


def poll(actor: Actor, listener_id: str, *, limit: int = PAGE) -> Pending:
    """The events waiting for the listener (oldest first, at most ``limit``); the poll keeps it alive."""
    with transaction() as session:
        listener = _live_listener(session, actor, listener_id)
        listener.expires_at = clock.now() + IDLE
        stmt = (
            select(Event)
            .join(ListenerEvent, ListenerEvent.event_id == Event.id)
            .where(ListenerEvent.listener_id == listener.id)
            .order_by(Event.created_at, Event.id)
            .limit(limit + 1)
        )
        found = list(session.scalars(stmt))
        return Pending(listener, found[:limit], len(found) > limit)


def acknowledge(actor: Actor, listener_id: str, event_ids: list[str]) -> int:
    """Forget the events the listener has forwarded; how many of them were waiting (the rest: never
    queued for it, or acknowledged before, which is no error: an acknowledgement may be repeated)."""
    with transaction() as session:
        listener = _live_listener(session, actor, listener_id)
        listener.expires_at = clock.now() + IDLE
        stmt = delete(ListenerEvent).where(
            ListenerEvent.listener_id == listener.id, ListenerEvent.event_id.in_(event_ids)
        )
        return int(getattr(session.execute(stmt), "rowcount", 0) or 0)


def close(actor: Actor, listener_id: str) -> None:
    """Stop the listener now; its waiting events are dropped."""
    with transaction() as session:
        listener = _live_listener(session, actor, listener_id)
        _audit(session, actor, AuditEvent.LISTENER_CLOSED, listener)
        session.delete(listener)


def of_caller(actor: Actor) -> ColumnElement[bool]:
    return and_(EventListener.account_id == actor.account.id, EventListener.livemode == actor.livemode)


def _live_listener(session: Session, actor: Actor, listener_id: str) -> EventListener:
    stmt = select(EventListener).where(
        EventListener.id == listener_id, of_caller(actor), EventListener.expires_at > clock.now()
    )
    listener = session.scalars(stmt.with_for_update()).one_or_none()
    if listener is None:
        raise NotFound(
            f"No event listener {listener_id}: it was closed, or it expired after {IDLE.seconds // 60} "
            "minutes without a poll. Start the listen command again."
        )
    return listener


def _audit(
    session: Session, actor: Actor, event: AuditEvent, listener: EventListener, **details: object
) -> None:
    audit.record(
        event,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"listenerId": listener.id, **details},
        session=session,
        livemode=actor.livemode,
    )
