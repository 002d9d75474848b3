"""White-label settings (Enterprise Plus, spec 1 and 2.3)."""

from __future__ import annotations

from flask import Response

from services.resellers import white_label
from web.api.resellers import reseller_blueprint
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body
from web.schemas.base import respond
from web.schemas.white_label import WhiteLabelBody, WhiteLabelOut

bp = reseller_blueprint("white_label", "/api/white-label")


@bp.get("")
@document("Your white-label settings", responses={200: WhiteLabelOut})
@require_scope("resellers:read")
def read() -> Response:
    return respond(WhiteLabelOut.of(white_label.get(current_auth())))


@bp.put("")
@document(
    "Set your brand and switch white-label on or off",
    request=WhiteLabelBody,
    responses={200: WhiteLabelOut},
    description="While on, every result served to you and your sub-users (single, batch, results URL, bulk "
    "download, webhook payloads) names your provider, support and documentation instead of ours.",
)
@require_scope("resellers:write")
def replace() -> Response:
    return respond(
        WhiteLabelOut.of(white_label.put(current_auth(), parse_body(WhiteLabelBody).to_settings()))
    )
