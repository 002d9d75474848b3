"""Webhooks: endpoints and their events, the signing secret at creation and rotation, a test send, the
delivery log (payload, response, status, time, retry history) with redelivery: ``services.webhooks``."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from werkzeug.wrappers import Response

from models.webhooks import WebhookEndpoint
from services.webhooks import delivery_log, endpoints, events
from services.webhooks.delivery_log import DeliveryRecord
from services.webhooks.events import EVENT_TYPES
from verimail_webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER
from web.dashboard import errors, forms, once, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required
from web.schemas.webhooks import (
    CreateWebhookBody,
    DeliveriesQuery,
    TestWebhookBody,
    WebhookOut,
)

Page = tuple[str, int, dict[str, str]]
LOG_PAGE = 20
NOT_STORED = "If you did not store it, rotate the secret to get a new one."


@bp.get("/webhooks")
@sign_in_required
def webhooks() -> Page:
    listed = [WebhookOut.of(endpoint) for endpoint in endpoints.list_endpoints(session.actor())]
    return forms.render("webhooks.html", endpoints=listed, event_types=EVENT_TYPES)


@bp.post("/webhooks")
@sign_in_required
def webhooks_create() -> Response:
    body = forms.as_model(CreateWebhookBody, {"url": forms.text("url"), "events": forms.many("events")})
    created = endpoints.create_endpoint(session.actor(), body.url, tuple(body.events))
    return _show(created.endpoint.id, created.secret, "created")


@bp.get("/webhooks/<int:endpoint_id>")
@sign_in_required
def webhooks_endpoint(endpoint_id: int) -> Page:
    actor = session.actor()
    endpoint = WebhookOut.of(endpoints.get_endpoint(actor, endpoint_id))
    after = forms.as_model(
        DeliveriesQuery, {"startingAfter": request.args.get("after") or None}
    ).starting_after
    log = delivery_log.list_event_deliveries(actor, endpoint_id, limit=LOG_PAGE, starting_after=after)
    return forms.render(
        "webhook.html", endpoint=endpoint, log=log, envelope=events.envelope, event_types=EVENT_TYPES
    )


@bp.post("/webhooks/<int:endpoint_id>/rotate-secret")
@sign_in_required
def webhooks_rotate(endpoint_id: int) -> Response:
    return _show(endpoint_id, endpoints.rotate_secret(session.actor(), endpoint_id).secret, "rotated")


@bp.get("/webhooks/<int:endpoint_id>/secret")
@sign_in_required
def webhooks_secret(endpoint_id: int) -> Page | Response:
    """The signing secret a form just issued, on this page's first load only (a reload issues nothing)."""
    endpoint = endpoints.get_endpoint(session.actor(), endpoint_id)
    return once.show(
        lambda shown: _secret_page(endpoint, shown.secret, shown.what),
        otherwise=url_for("dashboard.webhooks_endpoint", endpoint_id=endpoint_id),
        said=f"The signing secret was shown once and is not shown again. {NOT_STORED}",
    )


@bp.post("/webhooks/<int:endpoint_id>/test")
@sign_in_required
def webhooks_test(endpoint_id: int) -> Response:
    body = forms.as_model(TestWebhookBody, {"type": forms.text("type"), "endpointId": endpoint_id})
    _say(delivery_log.send_test(session.actor(), body.type, endpoint_id), "Test event")
    return redirect(url_for("dashboard.webhooks_endpoint", endpoint_id=endpoint_id))


@bp.post("/webhooks/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver")
@sign_in_required
def webhooks_redeliver(endpoint_id: int, delivery_id: int) -> Response:
    _say(delivery_log.redeliver(session.actor(), endpoint_id, delivery_id), "Redelivery")
    return redirect(f"{errors.back()}#delivery-{delivery_id}")  # the card it was asked on, on its page


@bp.post("/webhooks/<int:endpoint_id>/delete")
@sign_in_required
def webhooks_delete(endpoint_id: int) -> Response:
    endpoints.delete_endpoint(session.actor(), endpoint_id)
    flash(f"Webhook endpoint {endpoint_id} was deleted.", "success")
    return redirect(url_for("dashboard.webhooks"))


def _show(endpoint_id: int, secret: str, what: str) -> Response:
    return once.redirect_to(url_for("dashboard.webhooks_secret", endpoint_id=endpoint_id), secret, what)


def _secret_page(endpoint: WebhookEndpoint, secret: str, what: str) -> Page:
    """The signing secret, with the headers it checks named as deliveries carry them (spec 6.4)."""
    return forms.render(
        "webhook_secret.html",
        endpoint=endpoint,
        secret=secret,
        what=what,
        signature_header=SIGNATURE_HEADER,
        timestamp_header=TIMESTAMP_HEADER,
    )


def _say(record: DeliveryRecord, what: str) -> None:
    attempt = record.attempts[-1]
    answer = (
        f"HTTP {attempt.status_code}" if attempt.status_code is not None else (attempt.error or "no answer")
    )
    took = f" in {attempt.response_time_ms} ms" if attempt.response_time_ms is not None else ""
    if record.delivery.status == "delivered":
        flash(f"{what} {record.event.type} delivered: the endpoint answered {answer}{took}.", "success")
    else:
        flash(
            f"{what} {record.event.type} not delivered: {answer}{took}. See the delivery log below.", "error"
        )
