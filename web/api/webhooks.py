"""Webhook endpoints, their delivery log, redelivery and test sends (spec 4.7, 4.8, 6)."""

from __future__ import annotations

from flask import Blueprint, Response

from services.webhooks import delivery_log, endpoints, send_limits
from services.webhooks.delivery_log import DeliveryRecord
from services.webhooks.errors import SendsLimited
from web import errors
from web.auth import current_auth, require_scope
from web.config import app_settings
from web.openapi import document
from web.parsing import parse_body, parse_query
from web.schemas.base import respond
from web.schemas.errors import FlatError
from web.schemas.webhooks import (
    CreateWebhookBody,
    DeletedWebhookOut,
    DeliveriesQuery,
    DeliveryOut,
    DeliveryPageOut,
    TestResultOut,
    TestWebhookBody,
    UpdateWebhookBody,
    WebhookListOut,
    WebhookOut,
    WebhookWithSecretOut,
)

bp = Blueprint("webhooks", __name__, url_prefix="/webhooks")


@bp.post("")
@document(
    "Create a webhook endpoint (its signing secret is shown once)",
    request=CreateWebhookBody,
    responses={201: WebhookWithSecretOut},
)
@require_scope("webhooks:write")
def create() -> Response:
    body = parse_body(CreateWebhookBody)
    created = endpoints.create_endpoint(current_auth(), body.url, tuple(body.events))
    return respond(WebhookWithSecretOut.of_created(created), 201)


@bp.get("")
@document("List the account's webhook endpoints (never their secrets)", responses={200: WebhookListOut})
@require_scope("webhooks:read")
def list_all() -> Response:
    auth = current_auth()
    owned = [WebhookOut.of(endpoint) for endpoint in endpoints.list_endpoints(auth)]
    return respond(WebhookListOut(data=owned, livemode=auth.livemode))


@bp.get("/<int:endpoint_id>")
@document("Read one webhook endpoint", responses={200: WebhookOut})
@require_scope("webhooks:read")
def read(endpoint_id: int) -> Response:
    return respond(WebhookOut.of(endpoints.get_endpoint(current_auth(), endpoint_id)))


@bp.patch("/<int:endpoint_id>")
@document(
    "Change an endpoint's URL, events or status", request=UpdateWebhookBody, responses={200: WebhookOut}
)
@require_scope("webhooks:write")
def update(endpoint_id: int) -> Response:
    changes = parse_body(UpdateWebhookBody).to_changes()
    return respond(WebhookOut.of(endpoints.update_endpoint(current_auth(), endpoint_id, changes)))


@bp.delete("/<int:endpoint_id>")
@document("Delete an endpoint and its delivery log", responses={200: DeletedWebhookOut})
@require_scope("webhooks:write")
def delete(endpoint_id: int) -> Response:
    auth = current_auth()
    endpoints.delete_endpoint(auth, endpoint_id)
    return respond(DeletedWebhookOut(id=endpoint_id, livemode=auth.livemode))


@bp.post("/<int:endpoint_id>/rotate-secret")
@document(
    "Replace the signing secret; the old one stops signing at once", responses={200: WebhookWithSecretOut}
)
@require_scope("webhooks:write")
def rotate_secret(endpoint_id: int) -> Response:
    return respond(WebhookWithSecretOut.of_created(endpoints.rotate_secret(current_auth(), endpoint_id)))


@bp.get("/<int:endpoint_id>/deliveries")
@document("Page through an endpoint's delivery log", query=DeliveriesQuery, responses={200: DeliveryPageOut})
@require_scope("webhooks:read")
def deliveries(endpoint_id: int) -> Response:
    query, auth = parse_query(DeliveriesQuery), current_auth()
    page = delivery_log.list_deliveries(
        auth, endpoint_id, limit=query.limit, starting_after=query.starting_after
    )
    return respond(DeliveryPageOut.of(page, auth.livemode))


WAITS = (
    f"Waits at most {delivery_log.WAIT_SECONDS:g} s for the attempt, which a webhook worker makes: 202 "
    "with the delivery as it stands (and `Location`, its endpoint's delivery log) when the attempt has not "
    f"been logged by then. At most {send_limits.SENDS_PER_MINUTE} test sends and redeliveries per account "
    "and minute, counted apart for test mode and live mode."
)


@bp.post("/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver")
@document(
    "Send a delivery's event again now (a new delivery)",
    responses={201: DeliveryOut, 202: DeliveryOut, 429: FlatError},
    description=WAITS,
)
@require_scope("webhooks:write")
def redeliver(endpoint_id: int, delivery_id: int) -> Response:
    record = delivery_log.redeliver(current_auth(), endpoint_id, delivery_id)
    return respond(DeliveryOut.of(record), 201) if record.attempted else still_pending(record)


@bp.post("/test")
@document(
    "Send a sample event to an endpoint and return the outcome",
    request=TestWebhookBody,
    responses={200: TestResultOut, 202: DeliveryOut, 404: FlatError, 409: FlatError, 429: FlatError},
    description=WAITS + " 404 for an `endpointId` the account does not have; 409 (field `endpointId`) "
    "when it names none and the account has no endpoint or several.",
)
@require_scope("webhooks:write")
def test() -> Response:
    body = parse_body(TestWebhookBody)
    record = delivery_log.send_test(current_auth(), body.type, body.endpoint_id)
    return respond(TestResultOut.of(record)) if record.attempted else still_pending(record)


def still_pending(record: DeliveryRecord) -> Response:
    response = respond(DeliveryOut.of(record), 202)
    response.headers["Location"] = (
        f"{app_settings().base_url}/webhooks/{record.delivery.endpoint_id}/deliveries"
    )
    return response


@bp.errorhandler(SendsLimited)
def sends_limited(error: SendsLimited) -> Response:
    response = errors.on_service_error(error)
    response.headers["Retry-After"] = str(error.extra["retryAfter"])
    return response
