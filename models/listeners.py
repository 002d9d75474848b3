"""Event listeners: a developer's ``python -m verimail_webhooks listen`` pulling events instead of receiving
them, so a laptop gets test-mode (and live) events while the service never connects to a private address.

A listener belongs to one account and one mode and lives while it is polled (``expires_at`` moves forward
at every poll). ``emit`` queues one ``listener_events`` row per live listener of the event's account and
mode, in the transaction of the change; an acknowledgement deletes the row. Its signing secret is never
stored here: the service hands it out once and the listener's own process signs what it forwards.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class EventListener(Base):
    __tablename__ = "event_listeners"
    __table_args__ = (
        Index("ix_event_listeners_account_mode_expires", "account_id", "livemode", "expires_at"),
    )

    # "lsn_" + 128 random bits: the listener's public id, meaningful only with a key of its account and mode.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    livemode: Mapped[bool]
    events: Mapped[list[str]] = mapped_column(ARRAY(Text))
    # The key that opened it (audit); not a foreign key, like the audit log's, so it outlives the key.
    key_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    expires_at: Mapped[datetime]


class ListenerEvent(Base):
    """One event waiting for one listener until it acknowledges it."""

    __tablename__ = "listener_events"

    listener_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("event_listeners.id", ondelete="CASCADE"), primary_key=True
    )
    event_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True, index=True
    )
