"""Bounce feedback in: the account's inbound sources, and the one endpoint each provider posts to.

``POST /inbound/<id>`` takes no API key: the source's secret (basic auth or bearer) and, where the provider
signs, its signature authenticate it (``services.suppression.inbound``); every refusal is a 401 with one
code whatever the reason, and is audited."""

from __future__ import annotations

from flask import Blueprint, Response, request

from models.suppression import SourceKind
from services.suppression import inbound, sources
from services.suppression.errors import BadNotification, InboundRefused, SourceLimitReached
from web.api.suppression import CSV_PATTERN
from web.auth import current_auth, origin, public, require_scope
from web.body_limits import body_limit
from web.openapi import document
from web.parsing import parse_body
from web.schemas.base import respond
from web.schemas.suppression import (
    CreateSourceBody,
    ReceivedOut,
    SourceListOut,
    SourceOut,
    SourceWithSecretOut,
)

bp = Blueprint("suppression_inbound", __name__)
INBOUND_MAX_BYTES = 10 * 1024 * 1024
INBOUND_BODY = {
    "application/json": {"description": "The provider's webhook body, exactly as it sends it."},
    "text/plain": {"type": "string", "description": "Amazon SNS's HTTPS delivery (a JSON document)."},
    "text/csv": {
        "type": "string",
        "pattern": CSV_PATTERN,
        "description": "An upload source's bounces (`email`, `kind`, `diagnosticCode`, `bouncedAt`).",
    },
}


@bp.post("/suppression/sources")
@document(
    "Create an inbound source (its secret is shown once)",
    request=CreateSourceBody,
    responses={201: SourceWithSecretOut},
    errors=(SourceLimitReached,),
)
@require_scope("suppression:write")
def create() -> Response:
    body = parse_body(CreateSourceBody)
    spec = sources.SourceSpec(SourceKind(body.kind), body.name, body.verification_key, body.signing_key)
    return respond(SourceWithSecretOut.of_created(sources.create(current_auth(), spec)), 201)


@bp.get("/suppression/sources")
@document("List the inbound sources (never their secrets)", responses={200: SourceListOut})
@require_scope("suppression:read")
def list_all() -> Response:
    auth = current_auth()
    listed = [SourceOut.of(source) for source in sources.list_sources(auth)]
    return respond(SourceListOut(data=listed, livemode=auth.livemode))


@bp.delete("/suppression/sources/<source_id>")
@document("Revoke an inbound source: it accepts nothing from now on", responses={200: SourceOut})
@require_scope("suppression:write")
def revoke(source_id: str) -> Response:
    return respond(SourceOut.of(sources.revoke(current_auth(), source_id)))


@bp.post("/inbound/<source_id>")
@document(
    "Receive a provider's bounce and complaint notifications (no API key: the source's secret)",
    responses={200: ReceivedOut},
    raw_body=INBOUND_BODY,
    description="Authenticated by the source's secret (HTTP basic auth password, or a bearer token) and, "
    "where the provider signs, its signature: Amazon SNS (certificate on SNS's own host, SignatureVersion "
    "1 or 2), SendGrid (ECDSA, X-Twilio-Email-Event-Webhook-Signature), Mailgun (HMAC-SHA256 of timestamp "
    "and token). Anything else is 401 INBOUND_REQUEST_REFUSED and audited. Hard bounces and complaints "
    "suppress, soft bounces are counted; a notification received twice is recorded once.",
    errors=(InboundRefused, BadNotification),
    security=("InboundSecret", "InboundBearer"),
)
@public
@body_limit(lambda: INBOUND_MAX_BYTES)
def receive(source_id: str) -> Response:
    headers = {name.lower(): value for name, value in request.headers.items()}
    body = request.get_data()
    delivery = inbound.Delivery(source_id, _secret(), headers, body, request.mimetype, origin())
    return respond(ReceivedOut.of(inbound.receive(delivery)))


def _secret() -> str | None:
    """The basic-auth password or the bearer token presented, if any."""
    presented = request.authorization
    if presented is None:
        return None
    return presented.password if presented.type == "basic" else presented.token
