"""Base models: camelCase on the wire, strict types in, unknown fields refused (typos fail loudly)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from flask import Response
from pydantic import BaseModel, ConfigDict, PlainSerializer, WithJsonSchema, model_validator
from pydantic.alias_generators import to_camel

from core.times import iso
from services.errors import InvalidField

# An instant in a response, written by ``core.times.iso`` as the event envelopes and payloads write theirs,
# so a client parses one format everywhere (pydantic's own drops the fraction when it is zero).
TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"
Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str, when_used="json"),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": TIMESTAMP_PATTERN,
            "description": "ISO 8601 in UTC to the millisecond, e.g. 2026-01-31T12:00:00.000Z",
        }
    ),
]

# Every answer says which mode it was made in, as Stripe's objects do (docs/sandbox.md).
LIVEMODE = (
    "false in test mode (a sk_test_/pk_test_ key): answered by the sandbox's magic addresses, nothing "
    "checked for real and nothing charged"
)
# The same for answers about the account's data (keys, endpoints, deliveries): each mode has its own.
LIVEMODE_DATA = "false in test mode (a sk_test_/pk_test_ key): the test-mode data, never live data"


class Body(BaseModel):
    """A JSON request body: ``"true"`` is not a boolean, an unknown field is an error, not ignored, and
    ``null`` is refused: a field is left out to keep its value or take its default (as /openapi.json says)."""

    model_config = ConfigDict(alias_generator=to_camel, strict=True, extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def no_nulls(cls, data: object) -> object:
        if isinstance(data, dict):
            for name, value in data.items():
                if value is None:
                    raise InvalidField(str(name), f"{name} cannot be null; leave it out instead.")
        return data


class Query(BaseModel):
    """Query parameters arrive as text, so these convert (``limit=20`` -> 20) but still refuse unknowns."""

    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", frozen=True)


class Out(BaseModel):
    """A response body."""

    model_config = ConfigDict(alias_generator=to_camel, serialize_by_alias=True, validate_by_name=True)


def respond(body: Out, status: int = 200) -> Response:
    """``body`` as JSON in the schema's field order, serialised by pydantic in one step (dumping to
    Python values and then through the json module was a twentieth of a quick validation's CPU)."""
    return json_response(body.model_dump_json(by_alias=True), status)


def json_response(body: str | bytes, status: int = 200) -> Response:
    """JSON already serialised (``web.schemas.single_result``)."""
    return Response(body, status, mimetype="application/json")
