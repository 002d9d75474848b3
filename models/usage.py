"""Usage: one row per account and billing period (the quota record), one per charged request (idempotency).

Postgres is the record of quota usage: Redis here keeps nothing on disk, and a month of billing must not
vanish with a restart. ``UsagePeriod.used`` is changed only by one conditional ``UPDATE ... RETURNING``
(see ``services.usage.charging``), which row-locks the period, so concurrent charges serialise on it
and each sees its own exact before/after pair - that is what makes the 80% and 100% events fire exactly once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    ForeignKeyConstraint,
    Identity,
    Index,
    Integer,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class UsagePeriod(Base):
    """The validations an account used in one billing period, and what the period ended as."""

    __tablename__ = "usage_periods"
    __table_args__ = (
        UniqueConstraint("account_id", "period_start"),
        # What a charge's foreign key refers to, so the database holds a charge to its period's account.
        UniqueConstraint("id", "account_id"),
        CheckConstraint("used >= 0", name="used_not_negative"),
        # The reset sweep reads periods that ended but were not closed yet.
        Index("ix_usage_periods_open_end", "period_end", postgresql_where="closed_at IS NULL"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    period_start: Mapped[datetime]
    period_end: Mapped[datetime]
    # The plan's monthly volume, refreshed at each charge so a plan change applies at once; frozen at close.
    quota_limit: Mapped[int] = mapped_column(BigInteger)
    used: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # Set by the charge that crossed 80% / 100%: the guard that keeps each event to one per period.
    warning_sent_at: Mapped[datetime | None]
    exceeded_sent_at: Mapped[datetime | None]
    # The first refusal at the hard limit (120%): audited once per period, not once per refused request.
    blocked_at: Mapped[datetime | None]
    # Set by the reset sweep; ``overage`` (validations past the quota, billed at period end) with it.
    closed_at: Mapped[datetime | None]
    overage: Mapped[int | None] = mapped_column(BigInteger)
    # Of ``used``, the validations answered to publishable keys (web pages), for the usage report.
    publishable_used: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class UsageCharge(Base):
    """One admitted request (a batch is one charge of N validations), unique per idempotency key.

    The unique key is what keeps a redelivered task or a retried request from counting twice; the rows are
    also what rebuilds the rate-limit counters after a Redis restart.
    """

    __tablename__ = "usage_charges"
    __table_args__ = (
        UniqueConstraint("account_id", "idempotency_key"),
        # The charge's account is its period's, checked against the period row (which the charge holds
        # locked anyway to count) rather than by one more share lock on the account's row, which every
        # concurrent charge of the account took (each new set of lockers is a multixact; docs/decisions.md).
        ForeignKeyConstraint(
            ["period_id", "account_id"], ["usage_periods.id", "usage_periods.account_id"], ondelete="CASCADE"
        ),
        Index("ix_usage_charges_account_charged_at", "account_id", "charged_at"),
        # What rebuilds a publishable key's budget counters (``services.browser.budget``).
        Index(
            "ix_usage_charges_publishable_key_charged_at",
            "publishable_key_id",
            "charged_at",
            postgresql_where="publishable_key_id IS NOT NULL",
        ),
        CheckConstraint("validations > 0", name="validations_positive"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigInteger)
    # Not indexed alone: only the cascade from a deleted period looks charges up by it, and the account's
    # indexes serve that (one index write fewer on every charge).
    period_id: Mapped[int] = mapped_column(BigInteger)
    idempotency_key: Mapped[str] = mapped_column(Text)
    validations: Mapped[int] = mapped_column(Integer)
    charged_at: Mapped[datetime] = mapped_column(default=clock.now)
    # Set when the charge answered a publishable key (a web page): such charges are that key's budget,
    # not the account's request windows. No foreign key: a deleted key's charges keep its id, as audit does.
    publishable_key_id: Mapped[int | None] = mapped_column(BigInteger)


class SandboxUsage(Base):
    """The test-mode validations of an account in one billing period: counted for ``GET /api/usage`` under
    a test key, never charged. Its own table, so a test-mode flood never waits on the live period's row
    lock (``UsagePeriod``), and nothing live ever reads it."""

    __tablename__ = "sandbox_usage"

    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    period_start: Mapped[datetime] = mapped_column(primary_key=True)
    used: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
