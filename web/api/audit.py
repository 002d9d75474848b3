"""The account's audit log (admin keys only), newest first, filterable by type and time."""

from __future__ import annotations

from flask import Blueprint, Response

from services import audit
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_query
from web.schemas.audit import AuditLogQuery, AuditPageOut
from web.schemas.base import respond

bp = Blueprint("audit", __name__, url_prefix="/api")


@bp.get("/audit-log")
@document("Page through the account's audit log", query=AuditLogQuery, responses={200: AuditPageOut})
@require_scope("*:*")
def audit_log() -> Response:
    auth = current_auth()
    query = parse_query(AuditLogQuery).for_account(auth.account.id, auth.livemode)
    return respond(AuditPageOut.of(audit.list_entries(query), query.livemode))
