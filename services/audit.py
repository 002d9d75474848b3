"""The audit log service: ``record`` for every security-sensitive event, ``list_entries`` to read it.

``record`` is the seam other capabilities call (the limits work records rate-limit violations with it).
Given a session it joins that transaction, so a key and its ``key.created`` entry commit together; without
one it commits on its own, which is what denials need: the request fails, the trail must not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.audit import AuditEntry, AuditEvent
from models.session import transaction

USER_AGENT_MAX = 512
PAGE_MAX = 100


@dataclass(frozen=True)
class Origin:
    """Where a request came from, as the audit log records it."""

    ip: str | None = None
    user_agent: str | None = None
    # The signed-in dashboard user who acted (their email), for actions taken in the dashboard rather than
    # with a key: the entry's key id is then empty, and this says who it was.
    dashboard_user: str | None = None
    # Who acted when it was not the account itself: ``reseller`` for what a sub-user's reseller did to it.
    acted_by: str | None = None


SYSTEM = Origin()  # scheduled work (automatic rotation, deactivation) has no client
# A reseller's action as its sub-user's trail shows it: the reseller, never its staff's addresses or browsers.
RESELLER = Origin(acted_by="reseller")


def record(
    event: AuditEvent,
    *,
    account_id: int | None,
    key_id: int | None = None,
    origin: Origin = SYSTEM,
    details: Mapping[str, object] | None = None,
    session: Session | None = None,
    livemode: bool = True,
) -> AuditEntry:
    """Write one entry. Callers pass ids and facts, never a secret (details are shown to account admins)."""
    entry = AuditEntry(
        event=event.value,
        account_id=account_id,
        key_id=key_id,
        ip=origin.ip,
        user_agent=origin.user_agent[:USER_AGENT_MAX] if origin.user_agent else None,
        details=_with_actor(details, origin),
        livemode=livemode,
    )
    if session is not None:
        session.add(entry)
        return entry
    with transaction() as own:
        own.add(entry)
        own.flush()
    return entry


def _with_actor(details: Mapping[str, object] | None, origin: Origin) -> dict[str, object]:
    values = dict(details or {})
    if origin.dashboard_user is not None:
        values["dashboardUser"] = origin.dashboard_user
    if origin.acted_by is not None:
        values["actedBy"] = origin.acted_by
    return values


@dataclass(frozen=True)
class AuditQuery:
    """Newest first; ``starting_after`` is the id of the last entry of the previous page."""

    account_id: int
    events: Sequence[AuditEvent] = ()
    since: datetime | None = None
    until: datetime | None = None
    starting_after: int | None = None
    limit: int = 50
    livemode: bool = True  # the trail of one mode: live, or what test mode did


@dataclass(frozen=True)
class AuditPage:
    entries: list[AuditEntry]
    has_more: bool


def list_entries(query: AuditQuery) -> AuditPage:
    """One page of an account's trail; reads one row past the page to know whether another follows."""
    stmt = select(AuditEntry).where(
        AuditEntry.account_id == query.account_id, AuditEntry.livemode == query.livemode
    )
    if query.events:
        stmt = stmt.where(AuditEntry.event.in_([event.value for event in query.events]))
    if query.since is not None:
        stmt = stmt.where(AuditEntry.occurred_at >= query.since)
    if query.until is not None:
        stmt = stmt.where(AuditEntry.occurred_at < query.until)
    if query.starting_after is not None:
        stmt = stmt.where(AuditEntry.id < query.starting_after)
    limit = min(query.limit, PAGE_MAX)
    with transaction() as session:
        rows = list(session.scalars(stmt.order_by(AuditEntry.id.desc()).limit(limit + 1)))
    return AuditPage(entries=rows[:limit], has_more=len(rows) > limit)
