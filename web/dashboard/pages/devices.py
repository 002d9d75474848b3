"""Signed-in devices: every open session of the owner, with where and when it was last used; any of them
(or all others) can be ended here, and a copied cookie of an ended one opens nothing."""

from __future__ import annotations

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from services.users import sessions
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required

Page = tuple[str, int, dict[str, str]]


@bp.get("/devices")
@sign_in_required
def devices() -> Page:
    me = _me()
    return forms.render("devices.html", sessions=sessions.open_sessions(me.user.id), this_one=me.session_id)


@bp.post("/devices/<int:session_id>/end")
@sign_in_required
def devices_end(session_id: int) -> Response:
    me = _me()
    if session_id == me.session_id:
        session.end()
        return redirect(url_for("dashboard.sign_in"))
    ended = sessions.end_one(me.user.id, session_id)
    flash("That device is signed out." if ended else "That session had already ended.", "success")
    return redirect(url_for("dashboard.devices"))


@bp.post("/devices/end-others")
@sign_in_required
def devices_end_others() -> Response:
    me = _me()
    sessions.end_others(me.user.id, me.session_id)
    flash("Every other device is signed out.", "success")
    return redirect(url_for("dashboard.devices"))


def _me() -> sessions.SignedIn:
    found = session.signed_in()
    assert found is not None, "behind @sign_in_required"
    return found
