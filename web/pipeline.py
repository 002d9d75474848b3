"""The request pipeline, in the order it runs, so one read shows everything a request goes through.

before: request id -> body limit -> CORS preflight (browser endpoint only: ``web.cors``) -> authentication
        (rate limit and quota: ``web.limits``, per validating view)
on first use: the request's link host and brand (``web.branding``: a verified custom domain, white-label)
after:  X-Request-Id -> Access-Control-Allow-Origin (browser endpoint, allowed pages) -> X-API-Key-Warning/
        -Expires (grace keys) -> X-RateLimit-*/X-Quota-* headers -> error counts for /api/usage -> one JSON
        access line

Flask runs ``after_request`` functions in reverse registration order; ``install`` registers them so they
run in the order written above.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, Response, g, request
from werkzeug.exceptions import RequestEntityTooLarge

from core.times import iso
from models.keys import KeyStatus
from services.keys import rotation_policy
from web import body_limits, cors, limits, logs
from web.auth import authenticate_request
from web.client_ip import client_ip

log = logging.getLogger("verimail.request")
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


def assign_request_id() -> None:
    """Echo a caller's id when it is short and plain (so logs correlate across services), else mint one."""
    incoming = request.headers.get("X-Request-Id", "")
    g.request_id = incoming if SANE_REQUEST_ID.fullmatch(incoming) else f"req_{uuid.uuid4().hex}"
    g.started = time.perf_counter()


def time_left(budget: float) -> float:
    """What remains of ``budget`` seconds counted from the request's arrival (a time budget covers the
    authentication and limits before the view too)."""
    started: float = g.get("started", time.perf_counter())
    return budget - (time.perf_counter() - started)


def enforce_body_limit() -> None:
    """Refuse oversized bodies up front, even on views that never read them (Werkzeug also guards reads)."""
    limit = body_limits.limit_for_request()
    request.max_content_length = limit
    if request.content_length is not None and request.content_length > limit:
        raise RequestEntityTooLarge(f"Request bodies are limited to {limit} bytes.")


def add_request_id(response: Response) -> Response:
    response.headers["X-Request-Id"] = g.get("request_id") or f"req_{uuid.uuid4().hex}"
    return response


def add_key_warning(response: Response) -> Response:
    """A key in its grace period (spec 3.1, day 90 to 97) says on every response when it stops working.

    ``X-API-Key-Expires`` is the instant (ISO 8601, UTC) for programs; ``X-API-Key-Warning`` says the same
    to a person reading logs, with what to do. Keys that are not in grace carry neither.
    """
    auth = g.get("auth")
    if auth is None or auth.key.status != KeyStatus.GRACE:
        return response
    stops_at = iso(rotation_policy.stops_working_at(auth.key))
    response.headers["X-API-Key-Expires"] = stops_at
    response.headers["X-API-Key-Warning"] = (
        f"This API key is past its 90-day rotation date and stops working at {stops_at}; "
        f"refresh it with POST /api/keys/{auth.key.id}/refresh."
    )
    return response


def log_request(response: Response) -> Response:
    """One line per request; the path without its query string, which may hold a development key."""
    auth = g.get("auth")
    logs.write(
        log,
        "request",
        {
            "requestId": g.get("request_id"),
            "method": request.method,
            "path": logged_path(),
            "status": response.status_code,
            "durationMs": round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000, 1),
            "clientIp": client_ip(),
            "accountId": auth.account.id if auth else None,
            "keyId": auth.key.id if auth else None,
        },
    )
    return response


def logged_path() -> str:
    """The path, except where it carries a credential (a reset or verification link's ``<token>``): there
    the route's pattern, so no log line holds a link someone could still use."""
    if request.url_rule is not None and "token" in (request.view_args or {}):
        return request.url_rule.rule
    return request.path


def install(app: Flask) -> None:
    for hook in (assign_request_id, enforce_body_limit, cors.answer_preflight, authenticate_request):
        app.before_request(hook)
    afters = (
        add_request_id,
        cors.allow_origin,
        add_key_warning,
        limits.add_limit_headers,
        limits.count_error,
        log_request,
    )
    for after in reversed(afters):
        app.after_request(after)
