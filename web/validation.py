"""Request parsing with pydantic: a body or query string in, a typed model out, or a 400 naming the field."""

from __future__ import annotations

from typing import TypeVar

from flask import request
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from services.errors import InvalidField
from web.auth import QUERY_KEY_PARAM

M = TypeVar("M", bound=BaseModel)


def parse_body(model: type[M]) -> M:
    """The JSON body as ``model``; wrong content type is 415, malformed JSON 400 (no field to name)."""
    if not request.is_json:
        raise UnsupportedMediaType("Send the body as JSON with Content-Type: application/json.")
    try:
        data = request.get_json()
    except BadRequest:
        raise BadRequest("The request body is not valid JSON.") from None
    return validate(model, data)  # a literal ``null`` is valid JSON: the model says it is not an object


def parse_query(model: type[M]) -> M:
    """The query string as ``model`` (single-valued parameters; lists are comma-separated).

    ``api_key`` is authentication, not input, so it is not offered to the model (which refuses unknowns).
    """
    return validate(model, {name: value for name, value in request.args.items() if name != QUERY_KEY_PARAM})


def validate(model: type[M], data: object) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        raise InvalidField(field_name(first), describe(first)) from None


def field_name(error: ErrorDetails) -> str:
    """``("allowedIps", 2)`` -> ``allowedIps[2]``; an error about the whole body names ``body``."""
    name = ""
    for part in error["loc"]:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "body"


def describe(error: ErrorDetails) -> str:
    """Our validators' own messages verbatim; pydantic's prefixed with the field they concern."""
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, ValueError):
        return str(cause)
    return f"{field_name(error)}: {error['msg']}"
