"""The answers of an operation in /openapi.json (``web.openapi`` builds the rest): what its ``@document``
describes, the errors it declares by class, and those every operation of its kind gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel
from werkzeug.routing import Rule

from services import errors as service
from services.errors import ServiceError
from services.usage.errors import RateLimited
from web import openapi_headers
from web.auth import RATE_LIMITED
from web.errors import status_for
from web.schemas.errors import CodedError, FlatError

if TYPE_CHECKING:
    from web.openapi import Operation

Mode = Literal["validation", "serialization"]
Refs = Mapping[tuple[Any, Mode], Any]


def responses(
    rule: Rule, view: Callable[..., Any], op: Operation, refs: Refs, *, authenticated: bool
) -> dict[str, Any]:
    rate_limited = getattr(view, RATE_LIMITED, False)
    out = described(op, refs)
    keyed = (RateLimited,) if authenticated and not rate_limited else ()
    for status, body in raised(op.errors + keyed, refs).items():
        out.setdefault(str(status), body)
    out.setdefault("413", {**BODY_TOO_LARGE, "content": json_content(refs[(FlatError, "serialization")])})
    for status, model in shared_errors(rule, op, authenticated=authenticated).items():
        out.setdefault(str(status), response(model, refs))
    if op.coded_400:
        either = {"oneOf": [refs[(FlatError, "serialization")], refs[(CodedError, "serialization")]]}
        out["400"] = {
            "description": "Invalid input (flat, with field) or BATCH_EMPTY / BATCH_TOO_LARGE (coded)",
            "content": json_content(either),
        }
    if rate_limited:
        out["429"] = too_many_requests(refs)
    for code, body in out.items():
        body["headers"] = openapi_headers.for_response(int(code), authenticated=authenticated)
    out["414"] = {**URI_TOO_LONG}
    return out


def described(op: Operation, refs: Refs) -> dict[str, Any]:
    """The responses the view's ``@document`` describes itself."""
    out = {str(status): response(model, refs) for status, model in op.responses.items()}
    for status, media in (op.raw_responses or {}).items():
        out[str(status)] = {
            "description": op.raw_description,
            "content": {name: {"schema": schema} for name, schema in media.items()},
        }
    return out


def shared_errors(rule: Rule, op: Operation, *, authenticated: bool) -> dict[int, type[BaseModel]]:
    """The answers an operation gives by its kind: keyed, taking input, naming a resource."""
    errors: dict[int, type[BaseModel]] = {500: FlatError, 503: FlatError}
    if authenticated:
        errors |= {401: CodedError, 403: CodedError}
    if op.request or op.query or op.raw_body:
        errors[400] = FlatError
    if op.request or op.raw_body:
        errors[415] = FlatError
    if rule.arguments:
        errors[404] = FlatError
    return errors


# gunicorn refuses a request line (method, path and query string) over 4,094 bytes with a page of its own
# before the app runs: any operation can answer it, as HTML and without the API's headers.
URI_TOO_LONG = {
    "description": "The path and query string are longer than the HTTP server takes (about 4 KB); "
    "answered by the server itself, as HTML",
    "content": {"text/html": {"schema": {"type": "string"}}},
}


# The body limit is enforced before anything else (web.pipeline), on every route, whatever the method.
BODY_TOO_LARGE = {
    "description": "The request body is larger than this operation takes (flat, with the limit)"
}
# How an error without a code is described where it is declared: a caller refused for its key (missing,
# invalid, IP not allowed) speaks for no account, and past its IP address's windows the refusal becomes
# a 429 (web.auth.guarding), on any operation that takes a key.
FLAT_DESCRIPTIONS: dict[type[ServiceError], str] = {
    RateLimited: "Too many requests refused for their key from this client's address: wait `retryAfter` "
    "seconds (flat: retryAfter, limit, remaining, reset)",
}


def raised(errors: tuple[type[ServiceError], ...], refs: Refs) -> dict[int, dict[str, Any]]:
    """One response per status the ``errors`` answer with, naming their codes; both shapes when a status
    has both (a rate limit is flat, a quota refusal coded)."""
    by_status: dict[int, list[type[ServiceError]]] = {}
    for error in errors:
        by_status.setdefault(status_for(error), []).append(error)
    return {status: _raised_response(group, refs) for status, group in sorted(by_status.items())}


def _raised_response(group: list[type[ServiceError]], refs: Refs) -> dict[str, Any]:
    coded = [error for error in group if issubclass(error, service.CodedError)]
    shapes = [model for model, used in ((CodedError, coded), (FlatError, len(coded) < len(group))) if used]
    schemas = [refs[(model, "serialization")] for model in shapes]
    names = [f"`{error.code}`" for error in coded] + [
        FLAT_DESCRIPTIONS.get(error) or first_paragraph(error.__doc__ or error.__name__)
        for error in group
        if error not in coded
    ]
    return {
        "description": " or ".join(dict.fromkeys(names)),
        "content": json_content(schemas[0] if len(schemas) == 1 else {"oneOf": schemas}),
    }


def too_many_requests(refs: Refs) -> dict[str, Any]:
    """Both 429s of docs/plans.md: the rate limit (flat shape) and the monthly hard limit (coded)."""
    either = {"oneOf": [refs[(FlatError, "serialization")], refs[(CodedError, "serialization")]]}
    description = "Rate limit (flat: retryAfter, limit, remaining, reset) or monthly hard limit (coded)"
    return {"description": description, "content": json_content(either)}


def response(model: type[BaseModel], refs: Refs) -> dict[str, Any]:
    description = first_paragraph(model.__doc__ or model.__name__)
    return {"description": description, "content": json_content(refs[(model, "serialization")])}


def first_paragraph(text: str) -> str:
    """A docstring's first paragraph on one line (its first line alone can stop mid-sentence)."""
    return " ".join(text.strip().split("\n\n")[0].split())


def json_content(schema: Any) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}
