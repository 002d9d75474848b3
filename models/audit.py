"""The audit log: security-sensitive events, who did them, from where, when; never a secret."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Identity, Index, String, Text, func, true
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from core import clock
from models.base import Base


class AuditEvent(StrEnum):
    KEY_CREATED = "key.created"
    KEY_UPDATED = "key.updated"
    KEY_DELETED = "key.deleted"
    KEY_ROTATED = "key.rotated"
    KEY_DEACTIVATED = "key.deactivated"
    KEY_SECRET_REVEALED = "key.secret_revealed"  # noqa: S105 - an event name; the secret is never logged
    KEYS_REVOKED_ALL = "keys.revoked_all"
    AUTH_FAILED = "auth.failed"
    SCOPE_DENIED = "auth.scope_denied"
    IP_DENIED = "auth.ip_denied"
    ORIGIN_DENIED = (
        "auth.origin_denied"  # a web page not on the key's allowed origins used its publishable key
    )
    RATE_LIMITED = "rate_limit.exceeded"
    USER_SIGNED_UP = "user.signed_up"
    USER_SIGNED_IN = "user.signed_in"
    USER_SIGN_IN_FAILED = "user.sign_in_failed"
    USER_SIGNED_OUT = "user.signed_out"
    USER_PASSWORD_RESET_REQUESTED = "user.password_reset_requested"  # noqa: S105 - an event name
    USER_PASSWORD_CHANGED = "user.password_changed"  # noqa: S105 - an event name
    USER_EMAIL_VERIFIED = "user.email_verified"
    # A reseller's own log records what it does to its sub-users, brand and domains.
    SUB_USER_CREATED = "sub_user.created"
    SUB_USER_UPDATED = "sub_user.updated"
    SUB_USER_DELETED = "sub_user.deleted"
    WHITE_LABEL_UPDATED = "white_label.updated"
    CUSTOM_DOMAIN_ADDED = "custom_domain.added"
    CUSTOM_DOMAIN_VERIFIED = "custom_domain.verified"
    CUSTOM_DOMAIN_DELETED = "custom_domain.deleted"
    CUSTOM_DOMAIN_LAPSED = "custom_domain.lapsed"
    PLAN_GRANTED = "plan.granted"
    # ``python -m verimail_webhooks listen`` opened or closed an event listener (polls are not logged).
    LISTENER_OPENED = "listener.opened"
    LISTENER_CLOSED = "listener.closed"
    # Bounce feedback (``services.suppression``): sources made and revoked, and every refused notification.
    INBOUND_SOURCE_CREATED = "inbound_source.created"
    INBOUND_SOURCE_REVOKED = "inbound_source.revoked"
    INBOUND_REFUSED = "inbound.refused"


class AuditEntry(Base):
    __tablename__ = "audit_log"
    # Pages are read newest-first by id within an account; the type/time filters use the second index.
    __table_args__ = (
        Index("ix_audit_log_account_id_id", "account_id", "id"),
        Index("ix_audit_log_account_event_time", "account_id", "event", "occurred_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    # NULL for failures that name no account (a key that matches nothing); operators still see them.
    account_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("accounts.id", ondelete="CASCADE"))
    # Deliberately not a foreign key: the trail of a key must outlive the key's deletion.
    key_id: Mapped[int | None] = mapped_column(BigInteger)
    event: Mapped[str] = mapped_column(String(64))
    ip: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default="{}")
    occurred_at: Mapped[datetime] = mapped_column(default=clock.now, server_default=func.now())
    # False for what test mode did (a test key made, a sandbox 429): shown in the test-mode trail only.
    livemode: Mapped[bool] = mapped_column(default=True, server_default=true())
