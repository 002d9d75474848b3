"""API keys: one row holds a secret key (as SHA-256 only) and its publishable twin (plaintext).

Beside them, the 90-day rotation policy's memory: which milestones each secret reached (a unique row per
milestone and key generation, so each warning goes out once), and auto-rotated secrets sealed until revealed.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Identity,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    true,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column, relationship

from core import clock
from models.base import Base, Timestamped

if TYPE_CHECKING:
    from models.accounts import Account


class KeyStatus(StrEnum):
    """Spec 3.1: active, then (day 90 without auto-rotate) grace, then inactive; revoke-all -> inactive."""

    ACTIVE = "active"
    GRACE = "grace"
    INACTIVE = "inactive"


# A publishable key's budget until its owner sets one: enough for a small form's sign-ups, small enough
# that a script replaying the key spends little (docs/widget.md).
DEFAULT_DAILY_BUDGET = 100
DEFAULT_MONTHLY_BUDGET = 1_000
STATUS_VALUES = ", ".join(f"'{status.value}'" for status in KeyStatus)


class ApiKey(Timestamped, Base):
    __tablename__ = "api_keys"
    __table_args__ = (
        CheckConstraint(f"status IN ({STATUS_VALUES})", name="status_known"),
        CheckConstraint("char_length(name) BETWEEN 5 AND 100", name="name_length"),
        CheckConstraint("publishable_daily_budget >= 0", name="daily_budget_not_negative"),
        CheckConstraint("publishable_monthly_budget >= 0", name="monthly_budget_not_negative"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    scopes: Mapped[list[str]] = mapped_column(ARRAY(Text))
    allowed_ips: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
    # Web pages whose scripts may use the publishable key, in serialised form (``services.keys.origins``).
    allowed_origins: Mapped[list[str]] = mapped_column(ARRAY(Text), server_default="{}")
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
    # A test key (``sk_test_``/``pk_test_``) acts in test mode: the sandbox engine, nothing charged, its
    # own jobs and webhook endpoints (``verifier.sandbox``, docs/sandbox.md).
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
    # What the publishable key may have validated per UTC day and per billing period (``services.browser
    # .budget``): the owner's cap on what anyone holding the public half can spend of the quota.
    publishable_daily_budget: Mapped[int] = mapped_column(
        Integer, default=DEFAULT_DAILY_BUDGET, server_default=str(DEFAULT_DAILY_BUDGET)
    )
    publishable_monthly_budget: Mapped[int] = mapped_column(
        Integer, default=DEFAULT_MONTHLY_BUDGET, server_default=str(DEFAULT_MONTHLY_BUDGET)
    )

    account: Mapped[Account] = relationship(back_populates="keys")

    @property
    def is_usable(self) -> bool:
        """Active and grace keys authenticate; the grace period is the owner's last chance to rotate."""
        return self.status != KeyStatus.INACTIVE


class Milestone(StrEnum):
    """Spec 3.1's moments of a secret's life, named by the day they fall on."""

    WARNING_DAY_83 = "warning-day-83"
    WARNING_DAY_86 = "warning-day-86"
    WARNING_DAY_89 = "warning-day-89"
    ROTATED = "rotated-day-90"
    GRACE = "grace-day-90"
    DEACTIVATED = "deactivated-day-97"


class RotationNotice(Base):
    """One row per (key, milestone, secret generation): the unique constraint is what makes every
    milestone happen once, however many sweepers run at the same moment.

    A secret's generation is its ``secret_issued_at``: a refresh or rotation starts a new one, so the same
    key goes through the milestones again 90 days later.
    """

    __tablename__ = "key_rotation_notices"
    __table_args__ = (UniqueConstraint("key_id", "milestone", "secret_issued_at"),)

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    key_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("api_keys.id", ondelete="CASCADE"))
    milestone: Mapped[str] = mapped_column(String(32))
    secret_issued_at: Mapped[datetime]
    reached_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    # The owner's email about it; NULL when a later milestone of the same sweep made it moot.
    mail_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("outbound_mail.id", ondelete="SET NULL"), index=True
    )


class SealedSecret(Base):
    """An auto-rotated secret, encrypted with the server's key until its owner reveals it once.

    One per key: a later rotation replaces it. ``secret_issued_at`` ties it to the generation it belongs
    to (and is part of the cipher's associated data), so a manual refresh makes it worthless.
    """

    __tablename__ = "sealed_secrets"

    key_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True
    )
    secret_issued_at: Mapped[datetime]
    nonce: Mapped[bytes] = mapped_column(LargeBinary)
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
    expires_at: Mapped[datetime] = mapped_column(index=True)
    sealed_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())


class RetiredSecret(Base):
    """A secret that no longer authenticates because its key was given a new one or deleted, by its
    SHA-256 only (as ``api_keys`` keeps live ones): a request that still presents it is a failed
    authentication of that account, shown in its audit log, not of nobody. Kept for the account's life;
    one row per rotation is a few a year."""

    __tablename__ = "retired_secrets"

    secret_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    # No foreign key: a deleted key's id stays in its account's trail, as audit entries keep it.
    key_id: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str] = mapped_column(String(16))
    retired_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
