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
    """The six plan tiers of spec 8.1, as the API names them; ``services.usage.plans`` holds their limits."""

    GROWTH = "growth"
    PRO = "pro"
    BUSINESS = "business"
    SCALE = "scale"
    ENTERPRISE = "enterprise"
    ENTERPRISE_PLUS = "enterprise_plus"


TIER_VALUES = ", ".join(f"'{tier.value}'" for tier in Tier)


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

    keys: Mapped[list[ApiKey]] = relationship(back_populates="account", passive_deletes=True)
