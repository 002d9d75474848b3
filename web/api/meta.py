"""Public endpoints about the service itself: health and the API description."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from services import health as health_service
from web import openapi
from web.auth import public
from web.schemas.base import Out, respond

bp = Blueprint("meta", __name__)


class HealthOut(Out):
    """Each dependency and whether it answered; 503 when one did not."""

    status: str
    database: bool
    redis: bool


class OpenApiOut(Out):
    """This document."""


@bp.get("/health")
@openapi.document("Check that the service and its database and Redis answer", responses={200: HealthOut})
@public
def health() -> Response:
    checks = health_service.check()
    return respond(HealthOut(status="ok" if all(checks.values()) else "degraded", **checks),
                   200 if all(checks.values()) else 503)  # fmt: skip


@bp.get("/openapi.json")
@openapi.document("This API description (OpenAPI 3.1)", responses={200: OpenApiOut})
@public
def openapi_document() -> Response:
    document: dict[str, Any] = current_app.extensions.setdefault(
        "verimail.openapi", openapi.build(current_app)
    )
    return jsonify(document)
