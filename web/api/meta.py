"""Public endpoints about the service itself: health and the API description."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from services import health as health_service
from services import links
from web import openapi
from web.auth import public
from web.branding import host_brand
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
    healthy = all(checks.values())
    return respond(HealthOut(status="ok" if healthy else "degraded", **checks), 200 if healthy else 503)


@bp.get("/openapi.json")
@openapi.document("This API description (OpenAPI 3.1)", responses={200: OpenApiOut})
@public
def openapi_document() -> Response:
    """On a reseller's verified domain the document is the reseller's: its name, its host, its support."""
    brand = host_brand()
    if not brand.white_label:
        return jsonify(openapi.cached(current_app))
    return jsonify(
        openapi.branded(openapi.cached(current_app), brand, f"https://{links.hostname_of(request.host)}")
    )
