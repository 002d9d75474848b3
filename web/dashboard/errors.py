"""Errors on pages are pages: a form's refusal goes back to the form's page with the reason shown; a missing
token, an unknown id or a bug gets a readable page with its status (the JSON API keeps its own shapes)."""

from __future__ import annotations

import logging
from http import HTTPStatus
from urllib.parse import urlsplit

from flask import Blueprint, flash, g, redirect, render_template, request
from flask_wtf.csrf import CSRFError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from models import session as database
from services.errors import ServiceError
from web.errors import status_of

log = logging.getLogger(__name__)
CSRF_MESSAGE = (
    "This form could not be accepted: its security token is missing or out of date. "
    "Go back, reload the page and send it again."
)


def page(status: int, message: str) -> tuple[str, int]:
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


def on_unavailable(error: Exception) -> tuple[str, int]:
    log.error("backing store unreachable", exc_info=error, extra={"requestId": g.get("request_id")})
    return page(503, "The service is briefly unavailable. Try again in a few seconds.")


def on_database_error(error: DBAPIError) -> tuple[str, int]:
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
    bp.register_error_handler(RedisConnectionError, on_unavailable)
    bp.register_error_handler(RedisTimeoutError, on_unavailable)
    bp.register_error_handler(DBAPIError, on_database_error)
    bp.register_error_handler(Exception, on_unexpected)
