"""The commission report (Enterprise Plus, spec 4.10)."""

from __future__ import annotations

from flask import Response

from services.resellers import commissions
from web.api.resellers import reseller_blueprint
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_query
from web.schemas.base import respond
from web.schemas.commissions import CommissionQuery, CommissionReportOut
from web.schemas.errors import FlatError

bp = reseller_blueprint("commissions", "/api")


@bp.get("/commissions")
@document(
    "A month's commission report: each sub-user's requests and revenue, and your commission",
    query=CommissionQuery,
    responses={200: CommissionReportOut, 404: FlatError},
    description="Revenue of a sub-user = its tier's monthly price prorated by the days it existed, plus "
    "validations above its quota at its tier's price per validation. The current month may still change; "
    "an ended month is closed and never changes; a month that has not begun has no report yet (404).",
)
@require_scope("resellers:read")
def report() -> Response:
    period = parse_query(CommissionQuery).period
    return respond(CommissionReportOut.of(commissions.report(current_auth(), period)))
