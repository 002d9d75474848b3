"""Accounts: who pays, on which tier, since when; optionally under a reseller (Enterprise Plus)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Identity, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from models.base import Base, Timestamped

if TYPE_CHECKING:
    from models.keys import ApiKey


class Tier(StrEnum):
    """The six plan tiers of spec 8.1, as the API names them, and the trial every self-serve account opens
    on until its plan is granted; ``services.usage.plans`` holds their limits."""

    TRIAL = "trial"
    GROWTH = "growth"
    PRO = "pro"
    BUSINESS = "business"
    SCALE = "scale"
    ENTERPRISE = "enterprise"
    ENTERPRISE_PLUS = "enterprise_plus"


TIER_VALUES = ", ".join(f"'{tier.value}'" for tier in Tier)
# The plans of spec 8.1, which an operator (or a billing integration) grants; nobody takes one by signing up.
PAID_TIERS: tuple[Tier, ...] = tuple(tier for tier in Tier if tier is not Tier.TRIAL)


class Account(Timestamped, Base):
    __tablename__ = "accounts"
    __table_args__ = (CheckConstraint(f"tier IN ({TIER_VALUES})", name="tier_known"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    owner_email: Mapped[str] = mapped_column(String(254))
    name: Mapped[str | None] = mapped_column(Text)
    tier: Mapped[str] = mapped_column(String(32))
    # The instant monthly periods are counted from (quota resets, usage periods): the day the plan started.
    billing_anchor: Mapped[datetime]
    # Set for a sub-user of an Enterprise Plus reseller; the reseller work builds on it.
    parent_account_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="RESTRICT"), index=True
    )
    # Set while the account is suspended (by its reseller): its keys do not authenticate until it is cleared.
    suspended_at: Mapped[datetime | None]
    # When the owner proved the email is theirs (an emailed link); operator and reseller accounts are vouched
    # for at creation. Until then the account's keys do not authenticate.
    email_verified_at: Mapped[datetime | None]
    # The plan a self-serve owner asked for, while the account is on the trial; cleared once one is granted.
    requested_tier: Mapped[str | None] = mapped_column(String(32))

    keys: Mapped[list[ApiKey]] = relationship(back_populates="account", passive_deletes=True)
