"""API keys: one row holds a secret key (as SHA-256 only) and its publishable twin (plaintext)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Identity, String, Text, false
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column, relationship

from models.base import Base, Timestamped

if TYPE_CHECKING:
    from models.accounts import Account


class KeyStatus(StrEnum):
    """Spec 3.1: active, then (day 90 without auto-rotate) grace, then inactive; revoke-all -> inactive."""

    ACTIVE = "active"
    GRACE = "grace"
    INACTIVE = "inactive"


STATUS_VALUES = ", ".join(f"'{status.value}'" for status in KeyStatus)


class ApiKey(Timestamped, Base):
    __tablename__ = "api_keys"
    __table_args__ = (
        CheckConstraint(f"status IN ({STATUS_VALUES})", name="status_known"),
        CheckConstraint("char_length(name) BETWEEN 5 AND 100", name="name_length"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))
    allowed_ips: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    # Lowercase hex SHA-256 of the whole secret; requests find their key by this unique index.
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The last four characters, so people can tell keys apart ("sk_live_...k3Qz"); 24 of 256+ bits.
    secret_last4: Mapped[str] = mapped_column(String(4))
    publishable_key: Mapped[str] = mapped_column(Text, unique=True)
    status: Mapped[str] = mapped_column(String(16), default=KeyStatus.ACTIVE.value)
    # The 90-day rotation clock of spec 3.1 starts here and restarts at every refresh/rotation.
    secret_issued_at: Mapped[datetime] = mapped_column(index=True)
    auto_rotate: Mapped[bool] = mapped_column(default=False, server_default=false())
    deactivated_at: Mapped[datetime | None]
    # When the key last authenticated a request, to the minute (``services.keys.last_used``); null if never.
    last_used_at: Mapped[datetime | None]

    account: Mapped[Account] = relationship(back_populates="keys")

    @property
    def is_usable(self) -> bool:
        """Active and grace keys authenticate; the grace period is the owner's last chance to rotate."""
        return self.status != KeyStatus.INACTIVE
