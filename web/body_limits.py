"""Request body limits per view: the JSON API keeps ``MAX_BODY_BYTES``; a view that takes uploads (bulk
lists) declares its own larger limit with ``@body_limit``. The pipeline enforces it before authentication
(``Content-Length``) and Werkzeug while the body is read (chunked uploads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import current_app, request

from web.config import app_settings

F = TypeVar("F", bound=Callable[..., object])
BODY_LIMIT = "verimail_body_limit"


def body_limit(read_limit: Callable[[], int]) -> Callable[[F], F]:
    """Allow bodies up to ``read_limit()`` bytes on this view (read per request, from settings)."""

    def decorate(view: F) -> F:
        setattr(view, BODY_LIMIT, read_limit)
        return view

    return decorate


def limit_for_request() -> int:
    view = current_app.view_functions.get(request.endpoint or "")
    read_limit: Callable[[], int] | None = getattr(view, BODY_LIMIT, None)
    return read_limit() if read_limit is not None else app_settings().max_body_bytes
