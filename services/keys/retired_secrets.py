"""Secrets a key no longer has (rotated away, or the key deleted), remembered by hash only, so that a
request still presenting one is recorded as a failed authentication in its account's audit log."""

from __future__ import annotations

from sqlalchemy.orm import Session

from models.keys import ApiKey, RetiredSecret
from models.session import transaction

ROTATED = "rotated"
DELETED = "deleted"


def retire(session: Session, key: ApiKey, reason: str) -> None:
    """Remember ``key``'s current secret as retired, in the caller's transaction (before it changes)."""
    session.add(
        RetiredSecret(secret_hash=key.secret_hash, account_id=key.account_id, key_id=key.id, reason=reason)
    )


def find(secret_hash: str) -> RetiredSecret | None:
    """The retired secret with this SHA-256, if an account once had it (one primary-key read)."""
    with transaction() as session:
        return session.get(RetiredSecret, secret_hash)
