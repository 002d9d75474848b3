"""Audit log: every event type, filtered by type and by date (UTC days), newest first, paginated."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from flask import request

from models.audit import AuditEvent
from services import audit
from services.errors import InvalidField
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.audit import AuditLogQuery, AuditPageOut

PAGE = 25


@bp.get("/audit-log")
@sign_in_required
def audit_log() -> tuple[str, int, dict[str, str]]:
    args = request.args
    query = forms.as_model(
        AuditLogQuery,
        {
            "type": args.get("type") or [],
            "since": _day("from", args.get("from")),
            "until": _day("to", args.get("to"), next_day=True),
            "startingAfter": args.get("after") or None,
            "limit": PAGE,
        },
    )
    actor = session.actor()
    page = AuditPageOut.of(
        audit.list_entries(query.for_account(actor.account.id, actor.livemode)), actor.livemode
    )
    filters = {name: args.get(name, "") for name in ("type", "from", "to")}
    return forms.render(
        "audit_log.html", page=page, filters=filters, event_types=[event.value for event in AuditEvent]
    )


def _day(field: str, value: str | None, *, next_day: bool = False) -> datetime | None:
    """A date picker's ``YYYY-MM-DD`` as the start of that UTC day (``to`` includes its whole day)."""
    if not value:
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InvalidField(field, f"{field}: use a date such as 2026-11-24.") from None
    return datetime.combine(day + timedelta(days=1 if next_day else 0), time(), tzinfo=UTC)
