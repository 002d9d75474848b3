"""Emailed single-use links (password resets, email confirmations): found by their token's SHA-256, usable
once, until they expire, and only the newest of a user's counts.

A token not of the shape we make (``new_token``: 43 URL-safe characters) was cut or changed on its way, most
often by copying it from a quoted-printable email whose long line was broken with ``=``: its page says the
link is incomplete, not that it was used or expired, which would send the reader after the wrong cause."""

from __future__ import annotations

import re
import secrets
from datetime import datetime
from typing import TypeVar

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core import clock
from models.users import DashboardUser, EmailedLink
from services.keys.secrets import hash_secret
from services.users import passwords, sessions
from services.users.errors import ResetLinkInvalid
from settings import get_settings

L = TypeVar("L", bound=EmailedLink)
TOKEN_BYTES = 32
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # what ``secrets.token_urlsafe(TOKEN_BYTES)`` makes
INCOMPLETE = "This link is incomplete: part of it is missing or changed. Copy the whole link from the email."
IN_DEVELOPMENT = (
    " Running the service locally, copy it from the .txt file beside the email's .eml in var/mail/: there "
    "each link is a whole line."
)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def usable(session: Session, model: type[L], token: str, invalid: str, *, lock: bool) -> L:
    """The unused, unexpired link ``token``; ``ResetLinkInvalid(invalid)`` otherwise, or with the incomplete
    link's message when ``token`` is not of the shape we make."""
    if not TOKEN_SHAPE.fullmatch(token):
        development = not get_settings().is_production
        raise ResetLinkInvalid(INCOMPLETE + (IN_DEVELOPMENT if development else ""))
    stmt = select(model).where(model.token_hash == hash_secret(token))
    row = session.scalars(stmt.with_for_update() if lock else stmt).one_or_none()
    if row is None or row.used_at is not None or row.expires_at <= clock.now():
        raise ResetLinkInvalid(invalid)
    return row


def void_pending(session: Session, model: type[EmailedLink], user_id: int, now: datetime) -> None:
    """Every unused link of ``user_id`` of this kind stops working (a newer one was sent, or one was used)."""
    pending = (model.user_id == user_id, model.used_at.is_(None))
    session.execute(update(model).where(*pending).values(used_at=now))


def set_password(
    session: Session, model: type[EmailedLink], token: str, invalid: str, password: str
) -> DashboardUser:
    """Spend ``token`` (the other pending links of its kind go too): its user's password becomes ``password``
    and every session of that user ends. The caller has checked the password's strength."""
    row = usable(session, model, token, invalid, lock=True)
    now = clock.now()
    user = session.get_one(DashboardUser, row.user_id, with_for_update=True)
    user.password_hash, user.password_changed_at = passwords.hash_password(password), now
    void_pending(session, model, user.id, now)
    sessions.end_all(session, user.id)
    return user
