"""Audit log query parameters and entries."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from models.audit import AuditEntry, AuditEvent
from services.audit import PAGE_MAX, AuditPage, AuditQuery
from web.schemas.base import Out, Query, Timestamp
from web.schemas.inputs import DatabaseId, Instant


def comma_separated(value: object) -> object:
    return [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value


class AuditLogQuery(Query):
    """``type`` takes one or more comma-separated event types; ``since``/``until`` are ISO 8601 with zone."""

    type: Annotated[list[AuditEvent], BeforeValidator(comma_separated)] = Field(default_factory=list)
    since: Instant | None = None
    until: Instant | None = None
    starting_after: DatabaseId | None = None
    limit: int = Field(default=50, ge=1, le=PAGE_MAX)

    def for_account(self, account_id: int, livemode: bool = True) -> AuditQuery:
        return AuditQuery(
            account_id=account_id,
            livemode=livemode,
            events=tuple(self.type),
            since=self.since,
            until=self.until,
            starting_after=self.starting_after,
            limit=self.limit,
        )


class AuditEntryOut(Out):
    id: int
    type: str
    occurred_at: Timestamp
    key_id: int | None = Field(description="the key that acted (absent for scheduled work)")
    ip: str | None
    user_agent: str | None
    details: dict[str, Any]
    livemode: bool = Field(description="false for what a test key did (the test-mode trail)")

    @classmethod
    def of(cls, entry: AuditEntry) -> AuditEntryOut:
        return cls(
            id=entry.id,
            type=entry.event,
            occurred_at=entry.occurred_at,
            key_id=entry.key_id,
            ip=entry.ip,
            user_agent=entry.user_agent,
            details=entry.details,
            livemode=entry.livemode,
        )


class AuditPageOut(Out):
    """Newest first. Pass ``nextCursor`` as ``startingAfter`` for the next page while ``hasMore``."""

    data: list[AuditEntryOut]
    has_more: bool
    next_cursor: int | None
    livemode: bool = Field(description="the trail read: false for the test-mode one (a test key's)")

    @classmethod
    def of(cls, page: AuditPage, livemode: bool) -> AuditPageOut:
        last = page.entries[-1].id if page.entries and page.has_more else None
        entries = [AuditEntryOut.of(entry) for entry in page.entries]
        return cls(data=entries, has_more=page.has_more, next_cursor=last, livemode=livemode)
