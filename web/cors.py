"""CORS, for the one endpoint web pages call (``@browser_endpoint``: ``POST /validate/browser``); every other
route sends no CORS header, so no page can read its answers.

A preflight (``OPTIONS``) carries no key: browsers send neither credentials nor custom headers on it, and
the key may not travel in the URL in production (spec 5.2). So it cannot know whose page is asking, and it
grants nothing: it answers any page that POST with ``Content-Type`` and ``X-API-Key`` may be tried
(``Access-Control-Allow-Origin: *``, cached ``MAX_AGE`` seconds). The decision is the actual request's:
its key is known, and its response names the page's origin in ``Access-Control-Allow-Origin`` only when
the key lists that origin (``services.keys.origins``); the service refuses any other page's request before
counting anything (403 ``ORIGIN_NOT_ALLOWED``), and without the header the browser does not even let the
page read that refusal. No cookie is ever involved (``Access-Control-Allow-Credentials`` is never sent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import Response, current_app, g, request

from services.auth import AuthContext
from services.keys import origins

F = TypeVar("F", bound=Callable[..., object])
BROWSER = "verimail_browser_endpoint"
MAX_AGE = 600
PREFLIGHT = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST",
    "Access-Control-Allow-Headers": "Content-Type, X-API-Key",
    "Access-Control-Max-Age": str(MAX_AGE),
}


def browser_endpoint(view: F) -> F:
    """Mark a view as called by web pages: preflights answered, its answers readable by allowed origins."""
    setattr(view, BROWSER, True)
    return view


def answer_preflight() -> Response | None:
    """``before_request``, ahead of authentication: a preflight of a browser endpoint, answered here."""
    if request.method != "OPTIONS" or not _is_browser_endpoint():
        return None
    return Response(status=204, headers=PREFLIGHT)


def allow_origin(response: Response) -> Response:
    """``after_request``: the page's own origin, for a browser endpoint's answer to a key that allows it."""
    if request.method == "OPTIONS" or not _is_browser_endpoint():
        return response
    auth: AuthContext | None = g.get("auth")
    page = request.headers.get("Origin")
    if auth is not None and auth.is_publishable and origins.permits(auth.key.allowed_origins, page):
        response.headers["Access-Control-Allow-Origin"] = page or ""
    response.vary.add("Origin")
    return response


def _is_browser_endpoint() -> bool:
    if request.url_rule is None or request.endpoint is None:
        return False
    return getattr(current_app.view_functions[request.endpoint], BROWSER, False) is True
