"""Get started: where sign-up lands. Three steps to a first validation: a key, an address tried on the
Validate page, the API's description; each says when it is done."""

from __future__ import annotations

from flask import request

from services.keys import lifecycle
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required


@bp.get("/start")
@sign_in_required
def get_started() -> tuple[str, int, dict[str, str]]:
    keys = lifecycle.list_keys(session.actor())
    # Examples name this host, the one the owner reached the dashboard on.
    return forms.render("get_started.html", keys=keys, base_url=request.host_url.rstrip("/"))
