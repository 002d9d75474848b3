"""Reseller white-label: switch it on or off with the provider, support and documentation that every result
of the reseller and its sub-users then carries (``services.resellers.white_label``, as the API's PUT)."""

from __future__ import annotations

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from services.resellers import white_label
from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.resellers import reseller_required
from web.schemas.white_label import WhiteLabelBody, WhiteLabelOut

Page = tuple[str, int, dict[str, str]]


@bp.get("/reseller/white-label")
@reseller_required
def reseller_white_label() -> Page:
    return forms.render("white_label.html", settings=WhiteLabelOut.of(white_label.get(session.actor())))


@bp.post("/reseller/white-label")
@reseller_required
def reseller_white_label_save() -> Response:
    # An empty field is left out (the API refuses null): the setting is then cleared, as a PUT clears it.
    values = {name: forms.text(name) for name in white_label.FIELDS if forms.text(name)}
    body = forms.as_model(WhiteLabelBody, {"enabled": forms.checked("enabled"), **values})
    saved = white_label.put(session.actor(), body.to_settings())
    if saved.enabled:
        flash(f"White-label is on: your and your sub-users' results now name {saved.provider}.", "success")
    else:
        flash(
            "White-label is off: results carry the service's own name again; your values are kept.", "success"
        )
    return redirect(url_for("dashboard.reseller_white_label"))
