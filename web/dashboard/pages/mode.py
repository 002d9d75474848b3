"""The header's live/test switch: every page then shows and makes the chosen mode's data (jobs, keys,
webhook endpoints, audit entries), test mode under a banner so nobody takes sandbox results for real ones."""

from __future__ import annotations

from flask import flash, redirect, url_for
from werkzeug.wrappers import Response

from web.dashboard import forms, session
from web.dashboard.blueprint import bp
from web.dashboard.session import sign_in_required


@bp.post("/mode")
@sign_in_required
def mode() -> Response:
    live = forms.text("mode") != session.TEST
    session.switch_mode(live)
    flash(
        "Showing live data." if live else "Showing test data: nothing here is checked for real or charged.",
        "info",
    )
    return redirect(_back_to(forms.text("next")))


def _back_to(path: str) -> str:
    """The page the switch was used on, if it is a dashboard page (never another site)."""
    if path.startswith("/dashboard/") and not path.startswith("/dashboard//") and "\\" not in path:
        return path
    return url_for("dashboard.overview")
