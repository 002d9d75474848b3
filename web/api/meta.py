"""Public endpoints about the service itself: health and the API description."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from pydantic import Field

from services import health as health_service
from services import links
from web import openapi
from web.auth import public
from web.branding import host_brand
from web.config import app_settings
from web.errors import UNAVAILABLE_RETRY_SECONDS
from web.schemas.base import Out, json_response

bp = Blueprint("meta", __name__)
OPERATOR_HEADER = "X-Operator-Token"


class HealthOut(Out):
    """Each dependency and whether it answered in time; 503 naming the ones that did not."""

    status: str
    database: bool
    redis: bool
    down: list[str]
    egresses: list[dict[str, Any]] | None = Field(
        default=None,
        description="only for the operator (header `X-Operator-Token`): every egress probes leave from, "
        "with its counters, as `flask --app web egress status --json` shows them",
    )


class OpenApiOut(Out):
    """This document."""


@bp.get("/health")
@openapi.document("Check that the service and its database and Redis answer", responses={200: HealthOut})
@public
def health() -> Response:
    checks = health_service.check()
    down = health_service.down(checks)
    body = HealthOut(
        status="degraded" if down else "ok", down=down, database=checks["database"], redis=checks["redis"]
    )
    if health_service.operator(request.headers.get(OPERATOR_HEADER), app_settings()):
        body.egresses = health_service.egresses()
    # the public answer has no ``egresses``; a wrong operator token gets the public answer, as no token
    response = json_response(body.model_dump_json(by_alias=True, exclude_none=True), 503 if down else 200)
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
