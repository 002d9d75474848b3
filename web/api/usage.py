"""``GET /api/usage``: the account's quota, rate windows, recent errors and plan (spec 4.6)."""

from __future__ import annotations

from flask import Blueprint, Response

from services.usage.report import usage_report
from web.auth import current_auth, require_scope
from web.openapi import document
from web.schemas.base import respond
from web.schemas.usage import UsageOut

bp = Blueprint("usage", __name__, url_prefix="/api")


@bp.get("/usage")
@document(
    "The account's quota, rate limits, recent errors and plan",
    responses={200: UsageOut},
    description="Readable with the analytics:read scope and by a publishable key; never counts as usage.",
)
@require_scope("analytics:read", publishable_ok=True)
def usage() -> Response:
    auth = current_auth()
    return respond(UsageOut.of(usage_report(auth.account, auth.livemode)))
