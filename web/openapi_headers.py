"""The response headers of the API, for /openapi.json: what a client can rely on seeing, and when.

Kept beside the code that sets them (``web/pipeline.py``, ``web/limits.py``, ``web/errors.py``) by the
OpenAPI test, which compares these names with the headers real responses carry.
"""

from __future__ import annotations

from typing import Any


def _header(description: str, kind: str = "string") -> dict[str, Any]:
    return {"description": description, "schema": {"type": kind}}


HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-Id": _header("This request's id (yours echoed when sane); quote it to support."),
    "X-RateLimit-Limit": _header(
        "Requests allowed in the window closest to exhaustion (minute or UTC day): the account's, or, for "
        "a caller without a valid key, its IP address's (IPv6: its /64).",
        "integer",
    ),
    "X-RateLimit-Remaining": _header("Requests left in that window.", "integer"),
    "X-RateLimit-Reset": _header("When that window turns over, Unix seconds.", "integer"),
    "X-Quota-State": _header("From 80% of the monthly quota: warning, grace or blocked."),
    "X-Quota-Limit": _header("From 80%: the monthly quota.", "integer"),
    "X-Quota-Used": _header("From 80%: validations used this period.", "integer"),
    "X-Quota-Reset": _header("From 80%: the end of the billing period, Unix seconds.", "integer"),
    "X-Quota-Warning": _header("From 80%: the quota state in a sentence, for people reading logs."),
    "X-API-Key-Expires": _header("Keys in rotation grace: when the key stops working (ISO 8601)."),
    "X-API-Key-Warning": _header("Keys in rotation grace: the same in a sentence, and what to do."),
    "Retry-After": _header("Seconds to wait before retrying (429, 503).", "integer"),
}
ALWAYS = ("X-Request-Id",)
# On every answer but a 503 (the limiter itself may be what is unreachable).
WINDOWS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# On answers to a caller whose key authenticated (not on 401s: no account to report on).
AUTHENTICATED = (
    "X-Quota-State",
    "X-Quota-Limit",
    "X-Quota-Used",
    "X-Quota-Reset",
    "X-Quota-Warning",
    "X-API-Key-Expires",
    "X-API-Key-Warning",
)
RETRY = ("Retry-After",)


def refs(names: tuple[str, ...]) -> dict[str, dict[str, str]]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


def for_response(status: int, *, authenticated: bool) -> dict[str, dict[str, str]]:
    """The headers a response of ``status`` carries."""
    names: tuple[str, ...] = ALWAYS if status == 503 else ALWAYS + WINDOWS
    if authenticated and status != 401:
        names += AUTHENTICATED
    if status in (429, 503):
        names += RETRY
    return refs(names)
