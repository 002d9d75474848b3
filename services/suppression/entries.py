"""The suppression list as its owner manages it: page through, read one with its history, add, remove.

Every function is scoped to the caller's account and mode (``Actor.livemode``): test mode keeps its own
list, and another account's address is simply not on yours.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, delete, select
from sqlalchemy.orm import Session

from core import clock
from models.session import transaction
from models.suppression import BounceEvent, BounceKind, SoftBounce, SuppressedAddress
from services.auth import Actor
from services.errors import InvalidField, NotFound
from services.probing.fleet.fleet_engine import shared_engine
from services.suppression.normalise import suppression_key
from services.suppression.recording import Notice, Origin, record
from verifier.syntax import SyntaxFailure

HISTORY_MAX = 100


@dataclass(frozen=True)
class Page:
    entries: list[SuppressedAddress]
    has_more: bool


@dataclass(frozen=True)
class Entry:
    """One suppressed address (or only its soft bounces) with what was received about it, newest first."""

    address: str
    suppressed: SuppressedAddress | None
    soft_bounces: SoftBounce | None
    history: list[BounceEvent]


def list_page(actor: Actor, *, limit: int, starting_after: int | None, email: str | None = None) -> Page:
    """The list, newest first; ``starting_after`` is the id of the last entry of the previous page."""
    query = _owned(actor).order_by(SuppressedAddress.id.desc()).limit(limit + 1)
    if starting_after is not None:
        query = query.where(SuppressedAddress.id < starting_after)
    if email is not None:
        query = query.where(SuppressedAddress.address == suppression_key(email))
    with transaction() as session:
        rows = list(session.scalars(query))
    return Page(rows[:limit], len(rows) > limit)


def read(actor: Actor, email: str) -> Entry:
    """``email``'s entry and history; NotFound when nothing was ever received nor added about it."""
    key = _key_of(email)
    with transaction() as session:
        row = session.scalars(_owned(actor).where(SuppressedAddress.address == key)).one_or_none()
        soft = session.get(SoftBounce, (actor.account.id, actor.livemode, key))
        history = list(session.scalars(_history(actor, key)))
    if row is None and soft is None and not history:
        raise NotFound(f"{email!r} is not on this account's suppression list.")
    return Entry(key, row, soft, history)


def add(
    actor: Actor, email: str, diagnostic_code: str | None, *, source: str
) -> tuple[SuppressedAddress, bool]:
    """Put ``email`` on the list by hand (kept in its history too); the entry, and whether it was new (an
    address already there keeps its first evidence)."""
    checked_email(email)
    key, notice = suppression_key(email), Notice(email, BounceKind.MANUAL, clock.now(), diagnostic_code)
    with transaction() as session:
        before = session.scalars(_owned(actor).where(SuppressedAddress.address == key)).one_or_none()
        record(session, Origin(actor.account.id, actor.livemode, source), [notice])
        row = before or session.scalars(_owned(actor).where(SuppressedAddress.address == key)).one()
    return row, before is None


def remove(actor: Actor, email: str) -> SuppressedAddress:
    """Take ``email`` off the list (its history stays); NotFound when it is not on it."""
    with transaction() as session:
        row = session.scalars(
            delete(SuppressedAddress)
            .where(*_mine(actor), SuppressedAddress.address == _key_of(email))
            .returning(SuppressedAddress)
        ).one_or_none()
    if row is None:
        raise NotFound(f"{email!r} is not on this account's suppression list.")
    return row


def _key_of(email: str) -> str:
    """The key of an address named in a path; text no address has (a NUL) is simply not on the list."""
    if "\x00" in email or not _encodable(email):
        raise NotFound(f"{email!r} is not on this account's suppression list.")
    return suppression_key(email)


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no stored address has one
        return False
    return True


def checked_email(email: str, field: str = "email") -> None:
    """Only addresses go on the list: the text must parse as one."""
    if isinstance(failure := shared_engine().parse(email), SyntaxFailure):
        raise InvalidField(field, f"{email!r} is not an email address: {failure.reason}")


def _mine(actor: Actor) -> tuple[ColumnElement[bool], ...]:
    return (SuppressedAddress.account_id == actor.account.id, SuppressedAddress.livemode == actor.livemode)


def _owned(actor: Actor) -> Select[SuppressedAddress]:
    return select(SuppressedAddress).where(*_mine(actor))


def _history(actor: Actor, key: str) -> Select[BounceEvent]:
    return (
        select(BounceEvent)
        .where(
            BounceEvent.account_id == actor.account.id,
            BounceEvent.livemode == actor.livemode,
            BounceEvent.address == key,
        )
        .order_by(BounceEvent.id.desc())
        .limit(HISTORY_MAX)
    )


def all_entries(session: Session, actor: Actor, after: int, size: int) -> list[SuppressedAddress]:
    """A chunk of the list, oldest first, for an export."""
    query = _owned(actor).where(SuppressedAddress.id > after).order_by(SuppressedAddress.id).limit(size)
    return list(session.scalars(query))
