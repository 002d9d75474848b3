"""The 90-day rotation policy's memory: which milestones each secret reached, and sealed rotated secrets."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Identity, LargeBinary, String, UniqueConstraint, func
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


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
