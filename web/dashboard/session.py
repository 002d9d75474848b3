"""Who is signed in: the Flask session cookie (signed with SECRET_KEY) holds a random session token, and
the server's row for it (``services.users.sessions``) decides whether it still opens anything.

The cookie is the dashboard's only credential and the API never reads it (the API reads only keys), so a
page's cookie cannot call the JSON API and a key cannot open a page. Signing out ends the row, so a copy
of the cookie made before opens nothing after.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import g, redirect, request, session, url_for
from werkzeug.wrappers import Response

from models.users import DashboardUser
from services.users import acting, sessions
from services.users.acting import Owner
from web.auth import origin

P = ParamSpec("P")
R = TypeVar("R")
SID = "sid"
# The live/test switch: which mode's data the pages show and make (absent: live). The signed cookie keeps
# it; it grants nothing, since the owner acts on both modes of the account alike.
MODE = "mode"
TEST = "test"


def start(user: DashboardUser) -> None:
    """A fresh session for ``user``: cleared first, so a cookie planted before sign-in is not kept."""
    session.clear()
    session.permanent = True
    session[SID] = sessions.open_session(user, origin())


def end() -> None:
    """This browser's session ends on the server, then its cookie is emptied."""
    token = session.get(SID)
    if isinstance(token, str):
        sessions.end(token)
    session.clear()


def signed_in() -> sessions.SignedIn | None:
    """The signed-in owner of this request, or None (loaded once per request)."""
    if "signed_in" not in g:
        token = session.get(SID)
        found = sessions.current(token) if isinstance(token, str) else None
        if found is None and token is not None:
            session.clear()  # an ended session (signed out, password changed, idle) is forgotten
        g.signed_in = found
    return g.signed_in  # type: ignore[no-any-return]


def actor() -> Owner:
    """The owner acting through the same services as an admin key (``services.users.acting``)."""
    found = signed_in()
    assert found is not None, "actor() is only called from views behind @sign_in_required"
    return acting.as_owner(found, origin(), livemode=livemode())


def livemode() -> bool:
    """False while the owner has switched the dashboard to test data."""
    return session.get(MODE) != TEST


def switch_mode(live: bool) -> None:
    if live:
        session.pop(MODE, None)
    else:
        session[MODE] = TEST


def sign_in_required(view: Callable[P, R]) -> Callable[P, R | Response]:
    """Send a visitor without a session to the sign-in page, remembering where they were going."""

    @wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R | Response:
        if signed_in() is None:
            return redirect(url_for("dashboard.sign_in", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return guarded
