"""Errors on pages are pages: a form's refusal goes back to the form's page with the reason shown; a missing
token, an unknown id or a bug gets a readable page with its status (the JSON API keeps its own shapes)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from urllib.parse import urlsplit

from flask import Blueprint, flash, g, redirect, render_template, request
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolExhausted
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from models import session as database
from services.errors import ServiceError
from web.branding import host_brand
from web.errors import UNAVAILABLE, UNAVAILABLE_RETRY_SECONDS, status_of

log = logging.getLogger(__name__)
OUTAGES: tuple[type[Exception], ...] = (*UNAVAILABLE, DBAPIError)
CSRF_MESSAGE = (
    "This form could not be accepted: its security token is missing or out of date. "
    "Go back, reload the page and send it again."
)


def page(status: int, message: str) -> tuple[str, int]:
    """The error page; drawn again without asking the stores when one of them fails under it (a 404 or
    a form's refusal while Postgres is down is still that page, not a bare 500)."""
    try:
        return _error_page(status, message)
    except OUTAGES:
        g.stores_down = True
        return _error_page(status, message)


def _error_page(status: int, message: str) -> tuple[str, int]:
    title = HTTPStatus(status).phrase
    return render_template("dashboard/error.html", status=status, title=title, message=message), status


def on_csrf(_error: CSRFError) -> tuple[str, int]:
    return page(400, CSRF_MESSAGE)


def on_service_error(error: ServiceError) -> Response | tuple[str, int]:
    """A refused action: back to the page the form was on, with the reason; a GET shows it as a page."""
    if request.method == "POST":
        flash(error.message, "error")
        return redirect(back())
    return page(status_of(error), error.message)


def on_http_error(error: HTTPException) -> tuple[str, int]:
    status = error.code or 500
    return page(status, error.description or HTTPStatus(status).description)


def on_unavailable(error: Exception) -> tuple[str, int, dict[str, str]]:
    """Postgres or Redis not answering: a page with a banner saying so and when to try again, drawn
    without asking either store anything more (``stores_down``), with ``Retry-After`` as the API's 503."""
    log.error("backing store unreachable", exc_info=error, extra={"requestId": g.get("request_id")})
    g.stores_down = True
    html = render_template(
        "dashboard/unavailable.html",
        title="Briefly unavailable",
        part="its database" if isinstance(error, DBAPIError | PoolExhausted) else "its job queue",
        retry=UNAVAILABLE_RETRY_SECONDS,
        was_post=request.method == "POST",
    )
    return html, 503, {"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)}


def stores_down() -> bool:
    """This request met a store that is not answering: its page must not ask them again."""
    return bool(g.get("stores_down"))


def outage_brand() -> str:
    """The name the outage page wears: the host's brand if it can still be told (the public host needs no
    store for it), else a neutral word, never our name on a reseller's domain."""
    try:
        return host_brand().provider
    except OUTAGES:
        return "Dashboard"


def on_database_error(error: DBAPIError) -> tuple[str, int] | tuple[str, int, dict[str, str]]:
    """Postgres restarting is the same short outage page as Redis restarting; a refused statement is a bug."""
    return on_unavailable(error) if database.unreachable(error) else on_unexpected(error)


def on_unexpected(error: Exception) -> tuple[str, int]:
    request_id = g.get("request_id", "unknown")
    log.error("unhandled error", exc_info=error, extra={"requestId": request_id})
    return page(500, f"Something went wrong on our side. Quote {request_id} if you contact us.")


def back() -> str:
    """The dashboard page the form was posted from (same site only: never an open redirect)."""
    referrer = urlsplit(request.referrer or "")
    same_site = not referrer.netloc or referrer.netloc == request.host
    if same_site and referrer.path.startswith("/dashboard"):
        return referrer.path + (f"?{referrer.query}" if referrer.query else "")
    return "/dashboard/"


def install(bp: Blueprint) -> None:
    bp.register_error_handler(CSRFError, on_csrf)
    bp.register_error_handler(ServiceError, on_service_error)
    bp.register_error_handler(HTTPException, on_http_error)
    for unavailable in UNAVAILABLE:
        bp.register_error_handler(unavailable, on_unavailable)
    bp.register_error_handler(DBAPIError, on_database_error)
    bp.register_error_handler(Exception, on_unexpected)
