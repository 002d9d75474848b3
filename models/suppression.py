"""The suppression list: addresses an account must not send to, with the evidence that put them there.

Each account keeps one list per mode (test mode keeps its own, as it keeps its own keys). ``address`` is the
suppression key (``services.suppression.normalise``): two spellings of one mailbox are one row. Every bounce
or complaint received is kept as a ``BounceEvent`` (the history a dashboard shows); a hard bounce or a
complaint also suppresses; a soft bounce only adds to the address's ``SoftBounce`` counter.

Inbound sources are the signed endpoints the sending services post to: their secret is kept as a SHA-256
hash (it is random and long, so a slow hash adds nothing), a Mailgun signing key sealed
(``services.sealing``: it must be read back to check a signature), a SendGrid verification key in clear
(a public key).
"""

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
    UniqueConstraint,
    func,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class BounceKind(StrEnum):
    """What a notification says of an address: ``hard`` and ``complaint`` suppress, ``soft`` is counted;
    ``manual`` is an address put on the list by hand (the API, an import, the dashboard)."""

    HARD = "hard"
    SOFT = "soft"
    COMPLAINT = "complaint"
    MANUAL = "manual"


class SourceKind(StrEnum):
    SES = "ses"
    SENDGRID = "sendgrid"
    POSTMARK = "postmark"
    MAILGUN = "mailgun"
    UPLOAD = "upload"


def _values(enum: type[StrEnum]) -> str:
    return ", ".join(f"'{member.value}'" for member in enum)


class InboundSource(Base):
    __tablename__ = "inbound_sources"
    __table_args__ = (
        CheckConstraint(f"kind IN ({_values(SourceKind)})", name="kind_known"),
        Index("ix_inbound_sources_account_mode", "account_id", "livemode"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(100))
    secret_hash: Mapped[bytes] = mapped_column(LargeBinary)  # SHA-256 of the secret shown once
    secret_hint: Mapped[str] = mapped_column(String(8))  # its last characters, to tell sources apart
    verification_key: Mapped[str | None] = mapped_column(Text)  # SendGrid's public key (base64 DER)
    signing_key_nonce: Mapped[bytes | None] = mapped_column(LargeBinary)  # Mailgun's key, sealed
    signing_key_sealed: Mapped[bytes | None] = mapped_column(LargeBinary)
    topic_arn: Mapped[str | None] = mapped_column(Text)  # SES: the SNS topic it accepts, pinned at first
    confirm_url: Mapped[str | None] = mapped_column(Text)  # SES: the subscription still to confirm
    received: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    last_received_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    revoked_at: Mapped[datetime | None]


class SuppressedAddress(Base):
    __tablename__ = "suppressed_addresses"
    __table_args__ = (
        UniqueConstraint("account_id", "livemode", "address", name="uq_suppressed_addresses_key"),
        CheckConstraint(f"kind IN ({_values(BounceKind)})", name="kind_known"),
        Index("ix_suppressed_addresses_page", "account_id", "livemode", "id"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
    address: Mapped[str] = mapped_column(Text)  # the suppression key
    email: Mapped[str] = mapped_column(Text)  # as the evidence named it
    kind: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(16))  # a SourceKind, or api / import / dashboard
    source_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("inbound_sources.id", ondelete="SET NULL")
    )
    diagnostic_code: Mapped[str | None] = mapped_column(Text)
    bounced_at: Mapped[datetime]  # when the provider says it happened
    created_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())


class BounceEvent(Base):
    """One address of one notification received (or one row of an upload): the history. ``message_id`` is
    the provider's id of the notification, so a notification sent twice (providers retry) counts once."""

    __tablename__ = "bounce_events"
    __table_args__ = (
        UniqueConstraint("source_id", "message_id", "address", name="uq_bounce_events_message"),
        CheckConstraint(f"kind IN ({_values(BounceKind)})", name="kind_known"),
        Index("ix_bounce_events_address", "account_id", "livemode", "address"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
    source_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("inbound_sources.id", ondelete="SET NULL")
    )
    source: Mapped[str] = mapped_column(String(16))
    message_id: Mapped[str | None] = mapped_column(Text)
    address: Mapped[str] = mapped_column(Text)
    email: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    diagnostic_code: Mapped[str | None] = mapped_column(Text)
    occurred_at: Mapped[datetime]
    received_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())


class SoftBounce(Base):
    """Soft bounces of one address: counted, never suppressing."""

    __tablename__ = "soft_bounces"

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    livemode: Mapped[bool] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(Text, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_diagnostic_code: Mapped[str | None] = mapped_column(Text)
    last_at: Mapped[datetime]
