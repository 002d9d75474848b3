"""Events: the outbox. A row is written in the same transaction as the change that caused it.

Because the event and the change commit (or roll back) together, a crash, a Redis outage or a dead worker
can delay a notification but never lose one, nor announce a change that did not happen. Delivery state lives
in ``models.webhooks`` (one delivery row per subscribed endpoint, created alongside the event).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, false
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base


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
