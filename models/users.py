"""Dashboard users: the people who sign in to an account's dashboard, their emailed links and sessions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Identity, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base, Timestamped


class DashboardUser(Timestamped, Base):
    """An account's owner, signing in with email and password (an argon2id hash, never the password)."""

    __tablename__ = "dashboard_users"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    # One owner login per account for now; team members would drop this uniqueness.
    account_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"), unique=True
    )
    # Stored lowercased, so sign-in finds it whatever the case typed.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    # Sessions carry this instant; a password change moves it and so signs out every other session.
    password_changed_at: Mapped[datetime] = mapped_column(default=clock.now)
    last_sign_in_at: Mapped[datetime | None]


class EmailedLink:
    """A single-use, expiring link sent by email to a dashboard user; only the token's SHA-256 is stored."""

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("dashboard_users.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class PasswordResetToken(EmailedLink, Base):
    """A link that sets a new password (and proves the inbox is the owner's)."""

    __tablename__ = "password_reset_tokens"


class EmailVerificationToken(EmailedLink, Base):
    """A link that confirms a new account's email and lets its owner choose the password."""

    __tablename__ = "email_verification_tokens"


class DashboardSession(Base):
    """A signed-in browser: the cookie holds a random token, this row its SHA-256 and its life. Signing out,
    a password change or the owner ending it from the devices page sets ``ended_at``, and a copied cookie
    stops opening anything at once."""

    __tablename__ = "dashboard_sessions"

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("dashboard_users.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    last_seen_at: Mapped[datetime] = mapped_column(default=clock.now)
    expires_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    ip: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(300))
