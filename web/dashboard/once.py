"""Post/Redirect/Get for the pages that show a secret once (``services.shown_once`` holds it).

The form's answer is a 303 to the page that shows the secret; the session carries that page's claim (and
the non-secret facts it shows beside the secret), and the page takes it on its first load. A reload, the
back button or a second tab finds nothing: it says the secret was shown already and repeats no action.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flask import flash, redirect, request, session
from werkzeug.wrappers import Response

from services import shown_once

Page = tuple[str, int, dict[str, str]]
HELD = "shown_once"  # in the session: page path -> {"ticket", "key", "what", "facts"}
KEPT = 4  # claims of pages never opened are dropped past this many (the session is a cookie)


@dataclass(frozen=True)
class Shown:
    secret: str
    what: str  # created, refreshed, revealed, rotated
    facts: dict[str, str | int] = field(default_factory=dict)


def redirect_to(page: str, secret: str, what: str, **facts: str | int) -> Response:
    """Hold ``secret`` for ``page`` (a dashboard path) and send the browser there."""
    claim = shown_once.hold(secret)
    held = dict(list(_held().items())[-(KEPT - 1) :])
    held[page] = {"ticket": claim.ticket, "key": claim.key, "what": what, "facts": facts}
    session[HELD] = held
    return redirect(page, 303)


def show(page: Callable[[Shown], Page], *, otherwise: str, said: str) -> Page | Response:
    """``page`` with its secret the first time; after that, ``said`` on the ``otherwise`` page."""
    shown = take()
    if shown is None:
        flash(said, "info")
        return redirect(otherwise)
    return page(shown)


def take() -> Shown | None:
    """The secret held for this page, the first time it is asked for; None ever after."""
    held = _held()
    entry = held.pop(request.path, None)
    session[HELD] = held
    if not isinstance(entry, dict):
        return None
    secret = shown_once.take(shown_once.Claim(str(entry.get("ticket")), str(entry.get("key"))))
    return Shown(secret, str(entry.get("what")), dict(entry.get("facts") or {})) if secret else None


def _held() -> dict[str, object]:
    value = session.get(HELD)
    return dict(value) if isinstance(value, dict) else {}
