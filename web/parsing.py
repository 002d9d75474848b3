"""Request parsing with pydantic: a body or query string in, a typed model out, or a 400 naming the field."""

from __future__ import annotations

import json
from typing import TypeVar

from flask import current_app, request
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from werkzeug.exceptions import UnsupportedMediaType
from werkzeug.routing import IntegerConverter, Map

from services.errors import InvalidField
from web.auth import QUERY_KEY_PARAM
from web.schemas.inputs import BIGINT_MAX

M = TypeVar("M", bound=BaseModel)
# Deeper than any body of the API (an object of options is 3), far below Python's recursion limit, which the
# recursive checks below (and pydantic's) would reach near a thousand levels: a 500 instead of a 400.
MAX_BODY_DEPTH = 32


def parse_body(model: type[M]) -> M:
    """The JSON body as ``model``; wrong content type is 415. A body that is not JSON, or JSON but not an
    object, is a 400 naming ``body`` (every 400 names a field) and saying what is wrong with it."""
    if not request.is_json:
        raise UnsupportedMediaType("Send the body as JSON with Content-Type: application/json.")
    data = json_body()
    if not isinstance(data, dict):
        raise InvalidField("body", f"The request body must be a JSON object, not {json_kind(data)}.")
    return validate(model, data)


def json_body() -> object:
    """The body parsed as the app parses JSON (its size limit is the stream's: 413 past it)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise InvalidField("body", "The request body is empty; send a JSON object.")
    try:
        data = current_app.json.loads(raw)
    except ValueError as error:  # JSONDecodeError, or UnicodeDecodeError for bytes that are not text
        raise InvalidField("body", f"The request body is not valid JSON: {where_it_breaks(error)}.") from None
    except RecursionError:  # the parser's own guard, near a thousand levels
        raise too_deep() from None
    if depth_of(data) > MAX_BODY_DEPTH:
        raise too_deep()
    return data


def too_deep() -> InvalidField:
    return InvalidField("body", f"The request body is nested more than {MAX_BODY_DEPTH} levels deep.")


def depth_of(data: object) -> int:
    """How deep ``data`` nests (a scalar is 1), level by level: no recursion to run out of."""
    depth, level = 0, [data]
    while level:
        depth += 1
        level = [
            child
            for value in level
            if isinstance(value, dict | list)
            for child in (value.values() if isinstance(value, dict) else value)
        ]
    return depth


def where_it_breaks(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg.lower()} at line {error.lineno}, column {error.colno}"
    if isinstance(error, UnicodeDecodeError):
        return f"it is not UTF-8 text (byte {error.start + 1} cannot be decoded)"
    return str(error)


def json_kind(value: object) -> str:
    """JSON's name for the type of a parsed value, as a client wrote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = {list: "an array", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), type(value).__name__)


def parse_query(model: type[M]) -> M:
    """The query string as ``model`` (single-valued parameters; lists are comma-separated).

    ``api_key`` is authentication, not input, so it is not offered to the model (which refuses unknowns).
    """
    return validate(model, {name: value for name, value in request.args.items() if name != QUERY_KEY_PARAM})


def validate(model: type[M], data: object) -> M:
    refuse_unstorable_text(data)
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


def refuse_unstorable_text(data: object, where: str = "") -> None:
    """A 400 naming the field for text no database column can hold: NUL characters and lone surrogates
    (JSON's ``"\\ud800"`` decodes to one). Refused here, once, for every body and query string."""
    if isinstance(data, str):
        if "\x00" in data or not _is_valid_unicode(data):
            raise InvalidField(
                where or "body", f"{where or 'The body'} contains a NUL or an invalid Unicode character."
            )
    elif isinstance(data, dict):
        for name, value in data.items():
            refuse_unstorable_text(name, where or "body")
            refuse_unstorable_text(value, f"{where}.{name}" if where else str(name))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            refuse_unstorable_text(value, f"{where}[{index}]")


def _is_valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class DatabaseIdConverter(IntegerConverter):
    """``<int:...>`` in routes: an id past Postgres ``bigint`` matches no route (404) instead of overflowing
    in the query; non-negative only, as werkzeug's own.

    The bound is in the regex, not only in ``to_python``: werkzeug picks a rule by regex and runs the
    converter afterwards, so a number the converter refused after a rule of another method matched the
    path answered 405 (``DELETE /api/keys/9223372036854775808``) instead of 404.
    """

    def __init__(
        self, url_map: Map, fixed_digits: int = 0, min: int | None = None, max: int | None = None
    ) -> None:
        super().__init__(url_map, fixed_digits, min, BIGINT_MAX if max is None else max)
        if not fixed_digits and max is None:
            self.regex = digits_at_most(BIGINT_MAX)


def digits_at_most(limit: int) -> str:
    """A regex of the decimal numbers from 0 to ``limit`` (leading zeros allowed, as ``int()`` reads them)."""
    text = str(limit)
    shorter = rf"\d{{1,{len(text) - 1}}}" if len(text) > 1 else ""
    same_length = [
        text[:at] + (f"[0-{int(digit) - 1}]" if digit != "1" else "0") + rf"\d{{{len(text) - at - 1}}}"
        for at, digit in enumerate(text)
        if digit != "0"
    ]
    choices = [choice for choice in (shorter, *same_length, text) if choice]
    return rf"0*(?:{'|'.join(choices)})"
