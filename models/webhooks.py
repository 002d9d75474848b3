"""Webhook endpoints, the event outbox, deliveries (one per event and endpoint) and every attempt.

An event row is written in the same transaction as the change that caused it: the event and the change
commit (or roll back) together, so a crash, a Redis outage or a dead worker can delay a notification but
never lose one, nor announce a change that did not happen.

The retry schedule is data, not broker countdowns: ``next_attempt_at`` says when a pending delivery is due
and the beat sweeper picks due rows with ``FOR UPDATE SKIP LOCKED``. The unique (delivery, number) pair on
attempts is the database's own guarantee that one attempt is never recorded twice.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Identity,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, Timestamped


class EndpointStatus(StrEnum):
    """Enabled endpoints get new events; disabled ones keep their log and settings but get nothing new."""

    ENABLED = "enabled"
    DISABLED = "disabled"


class DeliveryStatus(StrEnum):
    """Spec 3.3: pending (attempts 1-6 on schedule), then delivered on a 2xx or failed after the last try."""

    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


def _values(enum: type[StrEnum]) -> str:
    return ", ".join(f"'{member.value}'" for member in enum)


class WebhookEndpoint(Timestamped, Base):
    __tablename__ = "webhook_endpoints"
    __table_args__ = (CheckConstraint(f"status IN ({_values(EndpointStatus)})", name="status_known"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    url: Mapped[str] = mapped_column(Text)
    events: Mapped[list[str]] = mapped_column(ARRAY(Text))
    # Kept readable because every delivery is signed with it (HMAC needs the key itself, not a hash);
    # it is shown to the client only at creation and rotation.
    secret: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=EndpointStatus.ENABLED.value)
    # A test-mode endpoint gets test-mode events only, a live one live events only; each mode's keys see
    # only their own endpoints.
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())


class WebhookDelivery(Timestamped, Base):
    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint(f"status IN ({_values(DeliveryStatus)})", name="status_known"),
        # The sweeper's query: only pending rows are indexed, so the index stays small as history grows.
        Index(
            "ix_webhook_deliveries_due",
            "next_attempt_at",
            postgresql_where=text("status = 'pending'"),
        ),
        Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    endpoint_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    event_id: Mapped[str] = mapped_column(String(40), ForeignKey("events.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16), default=DeliveryStatus.PENDING.value)
    attempt_count: Mapped[int] = mapped_column(SmallInteger, default=0, server_default="0")
    # 6 for real events (spec 6.4); 1 for test sends, whose outcome the caller sees at once.
    max_attempts: Mapped[int] = mapped_column(SmallInteger)
    next_attempt_at: Mapped[datetime | None]
    completed_at: Mapped[datetime | None]


class WebhookAttempt(Base):
    __tablename__ = "webhook_attempts"
    __table_args__ = (UniqueConstraint("delivery_id", "number", name="uq_webhook_attempts_delivery_number"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    delivery_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("webhook_deliveries.id", ondelete="CASCADE")
    )
    number: Mapped[int] = mapped_column(SmallInteger)
    attempted_at: Mapped[datetime]
    request_body: Mapped[str] = mapped_column(Text)
    status_code: Mapped[int | None] = mapped_column(SmallInteger)
    response_excerpt: Mapped[str | None] = mapped_column(Text)
    response_time_ms: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_account_id_created_at", "account_id", "created_at"),)

    # "evt_" + 128 random bits: public, unique, and the receivers' key for dropping duplicate deliveries.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime]
    # Sample events sent by POST /webhooks/test: logged like the others, never fanned out to subscribers.
    is_test: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Made in test mode (a test key's job, a test key): sent only to test-mode endpoints, ``livemode: false``.
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
