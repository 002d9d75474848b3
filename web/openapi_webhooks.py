"""The OpenAPI 3.1 ``webhooks`` section: what the service POSTs to a subscribed endpoint, one per event type.

Each entry gives the signed request a receiver gets (spec 6.2 envelope with the type's ``data``, the two
signature headers) and the answer expected of it (any 2xx within 30 s; anything else is retried on the
schedule of spec 6.4). The ``data`` schemas are components built from ``web.schemas.events``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from services.webhooks import retry_schedule
from verimail_webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER
from web.schemas.events import EVENT_DATA

DESCRIPTION = (
    "Sent to every enabled endpoint subscribed to the type. Verify {sig} (hex HMAC-SHA256 of the "
    "{ts} value, '.' and the raw body, keyed with the endpoint's secret), compared in constant time. "
    "Answer 2xx within 30 s; anything else is retried after {delays}. A "
    "delivery can arrive more than once: the event `id` identifies duplicates."
).format(sig=f"`{SIGNATURE_HEADER}`", ts=f"`{TIMESTAMP_HEADER}`", delays=retry_schedule.described())
HEADERS = [
    {
        "name": TIMESTAMP_HEADER,
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Unix seconds of the send; refuse requests far from your clock (replays).",
    },
    {
        "name": SIGNATURE_HEADER,
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Hex HMAC-SHA256 of timestamp, '.', raw body, keyed with the signing secret.",
    },
]


def models() -> list[type[BaseModel]]:
    """The ``data`` models, for the document's components."""
    return list(EVENT_DATA.values())


def webhooks(ref: Callable[[type[BaseModel]], dict[str, Any]]) -> dict[str, Any]:
    """The section; ``ref`` gives the schema reference of a ``data`` model among the components."""
    return {event_type: _webhook(event_type, ref(model)) for event_type, model in EVENT_DATA.items()}


def _webhook(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    body = envelope_schema(event_type, data)
    return {
        "post": {
            "operationId": f"event.{event_type}",
            "summary": f"{event_type} delivered to your endpoint",
            "description": DESCRIPTION,
            "parameters": HEADERS,
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {"2XX": {"description": "Received; no retry."}},
            "security": [],
        }
    }


def envelope_schema(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """Spec 6.2: id, type, timestamp, data; and livemode (false for a test-mode event)."""
    return {
        "type": "object",
        "required": ["id", "type", "timestamp", "livemode", "data"],
        "properties": {
            "id": {"type": "string", "pattern": "^evt_", "description": "unique; the same on every retry"},
            "type": {"const": event_type},
            "timestamp": {"type": "string", "format": "date-time"},
            "livemode": {
                "type": "boolean",
                "description": "false for an event of test mode (a test key's job or key), sent only to "
                "endpoints made with a test key",
            },
            "data": data,
        },
    }
