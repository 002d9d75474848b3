"""Enterprise Plus resellers: their terms, sub-users, white-label brand, custom domains, commission reports.

A sub-user is an ``Account`` of its own (``parent_account_id`` names its reseller); ``sub_users`` adds what
only a reseller's customer has: a public string id, the email it was created with and when it was deleted.
Rows are never deleted with the sub-user: a month's commission report still needs them.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Identity,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base, Timestamped

DEFAULT_COMMISSION_RATE = Decimal("20.00")  # percent (spec 2.9)


class ResellerTerms(Timestamped, Base):
    """What the operator agreed with a reseller; a reseller without a row has the defaults."""

    __tablename__ = "reseller_terms"
    __table_args__ = (
        CheckConstraint("max_sub_users IS NULL OR max_sub_users >= 0", name="max_sub_users_not_negative"),
        CheckConstraint("commission_rate BETWEEN 0 AND 100", name="commission_rate_percent"),
    )

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    max_sub_users: Mapped[int | None] = mapped_column(Integer)  # None: unlimited (spec 2.9)
    commission_rate: Mapped[Decimal] = mapped_column(Numeric(5, 2), server_default="20.00")


class SubUser(Timestamped, Base):
    __tablename__ = "sub_users"
    __table_args__ = (
        # One live sub-user per email and reseller; a deleted one frees its email.
        Index(
            "uq_sub_users_reseller_email_live",
            "reseller_id",
            "email",
            unique=True,
            postgresql_where="deleted_at IS NULL",
        ),
    )

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="RESTRICT"), primary_key=True
    )
    reseller_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="RESTRICT"), index=True
    )
    public_id: Mapped[str] = mapped_column(String(40), unique=True)
    email: Mapped[str] = mapped_column(String(254))
    deleted_at: Mapped[datetime | None]


class SubUserTier(Base):
    """Each tier a sub-user held and since when: what prorates its revenue when the tier changes mid-month."""

    __tablename__ = "sub_user_tiers"
    __table_args__ = (Index("ix_sub_user_tiers_account_effective", "account_id", "effective_at"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("sub_users.account_id", ondelete="CASCADE")
    )
    tier: Mapped[str] = mapped_column(String(32))
    effective_at: Mapped[datetime] = mapped_column(default=clock.now)


class WhiteLabel(Timestamped, Base):
    """A reseller's brand: shown instead of ours on its own and its sub-users' results while enabled."""

    __tablename__ = "white_labels"
    __table_args__ = (
        CheckConstraint(
            "NOT enabled OR (provider IS NOT NULL AND support IS NOT NULL AND documentation IS NOT NULL)",
            name="complete_when_enabled",
        ),
    )

    reseller_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    enabled: Mapped[bool] = mapped_column(default=False, server_default=false())
    provider: Mapped[str | None] = mapped_column(Text)
    support: Mapped[str | None] = mapped_column(Text)
    documentation: Mapped[str | None] = mapped_column(Text)


class CustomDomain(Timestamped, Base):
    """A hostname a reseller claims; it serves only once the DNS TXT challenge was found (``verified_at``)."""

    __tablename__ = "custom_domains"
    __table_args__ = (
        UniqueConstraint("reseller_id", "hostname"),
        # Several resellers may claim a name; the first to prove it owns it, and only it.
        Index(
            "uq_custom_domains_verified_hostname",
            "hostname",
            unique=True,
            postgresql_where="verified_at IS NOT NULL",
        ),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    public_id: Mapped[str] = mapped_column(String(40), unique=True)
    reseller_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    hostname: Mapped[str] = mapped_column(String(253))
    token: Mapped[str] = mapped_column(String(64))
    verified_at: Mapped[datetime | None]
    # Since when the re-check has not found the TXT record of a verified domain (null: found last time).
    missing_since: Mapped[datetime | None]


class CommissionReport(Base):
    """A closed month (spec 2.9, 4.10): written once when the month is over, never changed afterwards."""

    __tablename__ = "commission_reports"
    __table_args__ = (UniqueConstraint("reseller_id", "period"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    reseller_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    period: Mapped[str] = mapped_column(String(7))  # YYYY-MM
    commission_rate: Mapped[Decimal] = mapped_column(Numeric(5, 2))
    total_revenue_cents: Mapped[int] = mapped_column(BigInteger)
    commission_cents: Mapped[int] = mapped_column(BigInteger)
    closed_at: Mapped[datetime] = mapped_column(default=clock.now)


class CommissionLine(Base):
    """One sub-user's row of a closed report, as it read when the month closed."""

    __tablename__ = "commission_lines"
    __table_args__ = (UniqueConstraint("report_id", "position"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    report_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("commission_reports.id", ondelete="CASCADE")
    )
    position: Mapped[int] = mapped_column(Integer)
    sub_user_id: Mapped[str] = mapped_column(String(40))
    email: Mapped[str] = mapped_column(String(254))
    requests: Mapped[int] = mapped_column(BigInteger)
    revenue_cents: Mapped[int] = mapped_column(BigInteger)
    commission_cents: Mapped[int] = mapped_column(BigInteger)
