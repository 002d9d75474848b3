"""Public endpoints about the service itself: health and the API description."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from services import health as health_service
from services import links
from web import openapi
from web.auth import public
from web.branding import host_brand
from web.errors import UNAVAILABLE_RETRY_SECONDS
from web.schemas.base import Out, respond

bp = Blueprint("meta", __name__)


class HealthOut(Out):
    """Each dependency and whether it answered in time; 503 naming the ones that did not."""

    status: str
    database: bool
    redis: bool
    down: list[str]


class OpenApiOut(Out):
    """This document."""


@bp.get("/health")
@openapi.document("Check that the service and its database and Redis answer", responses={200: HealthOut})
@public
def health() -> Response:
    checks = health_service.check()
    down = health_service.down(checks)
    response = respond(
        HealthOut(status="degraded" if down else "ok", down=down, **checks), 503 if down else 200
    )
    if down:
        response.headers["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
    return response


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
