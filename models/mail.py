"""Outbound email: one row per message, from queued to sent or failed, with its attempts counted."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    func,
)
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class MailStatus(StrEnum):
    """queued (waiting for its next attempt) -> sent, or failed after a permanent refusal or the last try."""

    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"


MAIL_STATUS_VALUES = ", ".join(f"'{status.value}'" for status in MailStatus)


class OutboundMail(Base):
    __tablename__ = "outbound_mail"
    __table_args__ = (
        CheckConstraint(f"status IN ({MAIL_STATUS_VALUES})", name="status_known"),
        CheckConstraint("attempts >= 0", name="attempts_not_negative"),
        # The sender's sweep reads only what is due; sent and failed rows stay for the record.
        Index("ix_outbound_mail_due", "next_attempt_at", postgresql_where="status = 'queued'"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    recipient: Mapped[str] = mapped_column(String(254))
    # The From header when it is not MAIL_FROM: a white-labelled account's mail names its reseller, not us.
    sender: Mapped[str | None] = mapped_column(Text)
    subject: Mapped[str] = mapped_column(Text)
    text_body: Mapped[str] = mapped_column(Text)
    html_body: Mapped[str] = mapped_column(Text)
    # Values the bodies must not hold in clear (a reset or verification link), sealed under KEY_SEALING_KEY
    # until the message is sent or given up on, then dropped (``services.mail.outbox``).
    sealed_nonce: Mapped[bytes | None] = mapped_column(LargeBinary)
    sealed_values: Mapped[bytes | None] = mapped_column(LargeBinary)
    # Fixed when queued, so a retry after an unrecorded success carries the same id and clients can dedupe.
    message_id: Mapped[str] = mapped_column(Text, unique=True)
    status: Mapped[str] = mapped_column(String(16), default=MailStatus.QUEUED.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    max_attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    queued_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    sent_at: Mapped[datetime | None]
