"""Dashboard sessions on the server (``dashboard_sessions``): the cookie carries a random token, the row
decides whether it still opens anything.

A session ends when its owner signs out (that browser), ends it from the devices page (any browser), or
changes or resets the password (all of them); it also ends after ``IDLE`` without a request and, whatever
the activity, ``ABSOLUTE`` after sign-in. A cookie copied before any of these opens nothing afterwards.
``last_seen_at`` is written at most once per ``TOUCH_EVERY``, not on every page.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.session import transaction
from models.users import DashboardSession, DashboardUser
from services import audit
from services.keys.secrets import hash_secret

IDLE = timedelta(hours=2)
ABSOLUTE = timedelta(hours=12)
TOUCH_EVERY = timedelta(minutes=1)
USER_AGENT_MAX = 300


@dataclass(frozen=True)
class SignedIn:
    user: DashboardUser
    account: Account
    session_id: int


def open_session(user: DashboardUser, origin: audit.Origin) -> str:
    """A new session for ``user`` from ``origin``; the token for the cookie (only its hash is kept)."""
    token, now = secrets.token_urlsafe(32), clock.now()
    agent = origin.user_agent[:USER_AGENT_MAX] if origin.user_agent else None
    row = DashboardSession(
        user_id=user.id,
        token_hash=hash_secret(token),
        expires_at=now + ABSOLUTE,
        ip=origin.ip,
        user_agent=agent,
    )
    with transaction() as session:
        session.add(row)
    return token


def current(token: str) -> SignedIn | None:
    """Who the token signs in, or None when its session ended, idled out or expired."""
    now = clock.now()
    with transaction() as session:
        row = session.scalars(
            select(DashboardSession).where(DashboardSession.token_hash == hash_secret(token))
        ).one_or_none()
        if row is None or not _alive(row, now):
            return None
        if now - row.last_seen_at >= TOUCH_EVERY:
            row.last_seen_at = now
        user = session.get_one(DashboardUser, row.user_id)
        return SignedIn(user, session.get_one(Account, user.account_id), row.id)


def _alive(row: DashboardSession, now: datetime) -> bool:
    return row.ended_at is None and row.expires_at > now and now - row.last_seen_at < IDLE


def end(token: str) -> None:
    """Sign-out: this browser's session ends; a copy of its cookie opens nothing."""
    with transaction() as session:
        stmt = update(DashboardSession).where(DashboardSession.token_hash == hash_secret(token))
        session.execute(stmt.where(DashboardSession.ended_at.is_(None)).values(ended_at=clock.now()))


def end_one(user_id: int, session_id: int) -> bool:
    """The owner ends one of their sessions from the devices page; False if it is not theirs or not open."""
    with transaction() as session:
        stmt = update(DashboardSession).where(
            DashboardSession.id == session_id,
            DashboardSession.user_id == user_id,
            DashboardSession.ended_at.is_(None),
        )
        return bool(getattr(session.execute(stmt.values(ended_at=clock.now())), "rowcount", 0))


def end_all(session: Session, user_id: int, *, except_id: int | None = None) -> None:
    """Every open session of ``user_id`` (but ``except_id``) ends, in the caller's transaction."""
    stmt = update(DashboardSession).where(
        DashboardSession.user_id == user_id, DashboardSession.ended_at.is_(None)
    )
    if except_id is not None:
        stmt = stmt.where(DashboardSession.id != except_id)
    session.execute(stmt.values(ended_at=clock.now()))


def end_others(user_id: int, keep_id: int) -> None:
    with transaction() as session:
        end_all(session, user_id, except_id=keep_id)


def open_sessions(user_id: int) -> list[DashboardSession]:
    """The owner's sessions that still open pages, newest first (the devices page)."""
    now = clock.now()
    stmt = select(DashboardSession).where(
        DashboardSession.user_id == user_id,
        DashboardSession.ended_at.is_(None),
        DashboardSession.expires_at > now,
        DashboardSession.last_seen_at > now - IDLE,
    )
    with transaction() as session:
        return list(session.scalars(stmt.order_by(DashboardSession.last_seen_at.desc())))
