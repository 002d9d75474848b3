"""Bounces and complaints into the list: every notice kept as history, hard ones and complaints suppress,
soft ones counted.

A notice is recorded once per (source, provider message id, address): providers deliver at least once
and retry on any doubt, so a redelivered notification changes nothing. The first evidence that suppressed
an address stays its evidence (a later bounce only adds to its history).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.suppression import BounceEvent, BounceKind, InboundSource, SoftBounce, SuppressedAddress
from services.suppression.normalise import suppression_key

SUPPRESSING = frozenset({BounceKind.HARD, BounceKind.COMPLAINT, BounceKind.MANUAL})
DIAGNOSTIC_MAX = 1000  # characters kept of a diagnostic code (some servers write paragraphs)


@dataclass(frozen=True)
class Notice:
    """One address of one notification: what happened to it, when, and the server's words."""

    email: str
    kind: BounceKind
    occurred_at: datetime
    diagnostic_code: str | None = None
    message_id: str | None = None


@dataclass(frozen=True)
class Origin:
    """Whose list, in which mode, and what reported it (a source kind or api / import / dashboard)."""

    account_id: int
    livemode: bool
    source: str
    source_id: int | None = None


def record(session: Session, origin: Origin, notices: Iterable[Notice]) -> Counter[str]:
    """Record ``notices`` (see the module docstring); how many were new, by kind, and ``duplicate``."""
    counts: Counter[str] = Counter()
    for notice in map(_storable, notices):
        key = suppression_key(notice.email)
        if "@" not in key or "\ufffd" in key:
            counts["ignored"] += 1
        elif _remembered(session, origin, notice, key):
            _apply(session, origin, notice, key)
            counts[notice.kind.value] += 1
        else:
            counts["duplicate"] += 1
    if origin.source_id is not None and counts:
        _count_received(session, origin.source_id, counts.total())
    return counts


def _remembered(session: Session, origin: Origin, notice: Notice, key: str) -> bool:
    """The notice kept as history; False when this source already reported it."""
    inserted = session.execute(
        insert(BounceEvent)
        .values(
            **_evidence(origin, notice, key),
            message_id=notice.message_id,
            occurred_at=notice.occurred_at,
            received_at=clock.now(),
        )
        .on_conflict_do_nothing(constraint="uq_bounce_events_message")
        .returning(BounceEvent.id)
    ).scalar_one_or_none()
    return inserted is not None


def _evidence(origin: Origin, notice: Notice, key: str) -> dict[str, object]:
    """The columns a notice's history row and its suppression share: whose, which address, what said so."""
    return {
        "account_id": origin.account_id,
        "livemode": origin.livemode,
        "source_id": origin.source_id,
        "source": origin.source,
        "address": key,
        "email": notice.email.strip(),
        "kind": notice.kind.value,
        "diagnostic_code": _clipped(notice.diagnostic_code),
    }


def _apply(session: Session, origin: Origin, notice: Notice, key: str) -> None:
    if notice.kind in SUPPRESSING:
        suppress(session, origin, notice, key)
    else:
        _count_soft(session, origin, notice, key)


def suppress(session: Session, origin: Origin, notice: Notice, key: str) -> bool:
    """Put ``key`` on the list with this notice as its evidence; False when it was already there."""
    inserted = session.execute(
        insert(SuppressedAddress)
        .values(**_evidence(origin, notice, key), bounced_at=notice.occurred_at, created_at=clock.now())
        .on_conflict_do_nothing(constraint="uq_suppressed_addresses_key")
        .returning(SuppressedAddress.id)
    ).scalar_one_or_none()
    return inserted is not None


def _count_soft(session: Session, origin: Origin, notice: Notice, key: str) -> None:
    diagnostic = _clipped(notice.diagnostic_code)
    statement = insert(SoftBounce).values(
        account_id=origin.account_id,
        livemode=origin.livemode,
        address=key,
        count=1,
        last_diagnostic_code=diagnostic,
        last_at=notice.occurred_at,
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["account_id", "livemode", "address"],
            set_={
                "count": SoftBounce.count + 1,
                "last_diagnostic_code": diagnostic,
                "last_at": statement.excluded.last_at,
            },
        )
    )


def _count_received(session: Session, source_id: int, count: int) -> None:
    session.execute(
        update(InboundSource)
        .where(InboundSource.id == source_id)
        .values(received=InboundSource.received + count, last_received_at=clock.now())
    )


def _storable(notice: Notice) -> Notice:
    """A notice as Postgres can hold it: provider fields as text (a payload may carry a number where text
    is documented) and without NUL, which no address contains (one carrying it is then ignored)."""
    email = str(notice.email).replace("\x00", "\ufffd")
    return replace(
        notice,
        email=email,
        diagnostic_code=_text(notice.diagnostic_code),
        message_id=_text(notice.message_id),
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value).replace("\x00", "")


def _clipped(text: str | None) -> str | None:
    return None if text is None else text.strip()[:DIAGNOSTIC_MAX] or None
