"""Event listeners: events pulled by ``python -m verimail_webhooks listen`` instead of pushed (no inbound
connection to a developer's machine is ever made)."""

from __future__ import annotations

from flask import Blueprint, Response

from services.webhooks import listeners
from services.webhooks.errors import ListenerLimitReached
from web.auth import current_auth, require_scope
from web.openapi import document
from web.parsing import parse_body, parse_query
from web.schemas.base import respond
from web.schemas.listeners import (
    AcknowledgeBody,
    AcknowledgedOut,
    ClosedListenerOut,
    OpenedListenerOut,
    OpenListenerBody,
    PendingEventsOut,
    PendingQuery,
)

bp = Blueprint("listeners", __name__, url_prefix="/webhooks/listeners")
# Names no package: a reseller's branded API description must not show the product behind it.
ABOUT = (
    "A listener receives the events of the key's account and mode (a test key: test-mode events) without a "
    "public endpoint: poll its events, forward each, acknowledge them. The webhook helper's "
    "`listen --forward-to URL` command does all three, signing each event like a webhook delivery with the "
    "listener's secret."
)


@bp.post("")
@document(
    "Open an event listener (its signing secret is shown once)",
    request=OpenListenerBody,
    responses={201: OpenedListenerOut},
    description=ABOUT + f" At most {listeners.MAX_LISTENERS} open at once per account and mode.",
    errors=(ListenerLimitReached,),
)
@require_scope("webhooks:read")
def open_listener() -> Response:
    body = parse_body(OpenListenerBody)
    opened = listeners.open_listener(current_auth(), tuple(body.events))
    return respond(OpenedListenerOut.of_opened(opened), 201)


@bp.get("/<listener_id>/events")
@document(
    "The events waiting for a listener, oldest first (a poll keeps the listener open)",
    query=PendingQuery,
    responses={200: PendingEventsOut},
)
@require_scope("webhooks:read")
def pending(listener_id: str) -> Response:
    query = parse_query(PendingQuery)
    return respond(PendingEventsOut.of(listeners.poll(current_auth(), listener_id, limit=query.limit)))


@bp.post("/<listener_id>/acknowledge")
@document(
    "Acknowledge forwarded events: they are not answered again",
    request=AcknowledgeBody,
    responses={200: AcknowledgedOut},
)
@require_scope("webhooks:read")
def acknowledge(listener_id: str) -> Response:
    body, auth = parse_body(AcknowledgeBody), current_auth()
    count = listeners.acknowledge(auth, listener_id, body.event_ids)
    return respond(AcknowledgedOut(acknowledged=count, livemode=auth.livemode))


@bp.delete("/<listener_id>")
@document("Close a listener; the events still waiting for it are dropped", responses={200: ClosedListenerOut})
@require_scope("webhooks:read")
def close(listener_id: str) -> Response:
    auth = current_auth()
    listeners.close(auth, listener_id)
    return respond(ClosedListenerOut(id=listener_id, livemode=auth.livemode))
