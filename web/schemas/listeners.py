"""Event listener bodies: open one (its secret shown once), the events waiting for it, acknowledgements."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from models.listeners import EventListener
from services.webhooks import listeners
from services.webhooks.events import EVENT_TYPES, envelope
from web.schemas.base import LIVEMODE_DATA, Body, Out, Query, Timestamp
from web.schemas.webhooks import EventTypes

EventId = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^evt_[0-9a-f]{32}$")]


class OpenListenerBody(Body):
    events: EventTypes = Field(
        default_factory=lambda: list(EVENT_TYPES),
        description="the event types to receive; every type if left out",
    )


class ListenerOut(Out):
    id: str
    events: list[str]
    livemode: bool = Field(description="false for a test key's listener: it gets test-mode events only")
    created_at: Timestamp
    expires_at: Timestamp = Field(
        description=f"moves to {listeners.IDLE.seconds // 60} minutes after each poll; past it the listener "
        "gets nothing new and answers 404"
    )

    @classmethod
    def of(cls, listener: EventListener) -> ListenerOut:
        return cls(
            id=listener.id,
            events=listener.events,
            livemode=listener.livemode,
            created_at=listener.created_at,
            expires_at=listener.expires_at,
        )


class OpenedListenerOut(ListenerOut):
    """The new listener with the secret to sign forwarded events with: shown here once, kept nowhere."""

    secret: str

    @classmethod
    def of_opened(cls, opened: listeners.OpenedListener) -> OpenedListenerOut:
        return cls(**ListenerOut.of(opened.listener).model_dump(), secret=opened.secret)


class PendingQuery(Query):
    limit: int = Field(default=listeners.PAGE, ge=1, le=listeners.PAGE)


class PendingEventsOut(Out):
    """Oldest first: each event is the envelope a webhook endpoint receives as its body."""

    data: list[dict[str, Any]]
    has_more: bool
    expires_at: Timestamp
    livemode: bool = Field(description=LIVEMODE_DATA)

    @classmethod
    def of(cls, pending: listeners.Pending) -> PendingEventsOut:
        return cls(
            data=[envelope(event) for event in pending.events],
            has_more=pending.has_more,
            expires_at=pending.listener.expires_at,
            livemode=pending.listener.livemode,
        )


class AcknowledgeBody(Body):
    event_ids: Annotated[list[EventId], Field(min_length=1, max_length=listeners.PAGE)]


class AcknowledgedOut(Out):
    acknowledged: int = Field(description="how many of the events were waiting (a repeated one counts 0)")
    livemode: bool = Field(description=LIVEMODE_DATA)


class ClosedListenerOut(Out):
    id: str
    deleted: bool = True
    livemode: bool = Field(description=LIVEMODE_DATA)
