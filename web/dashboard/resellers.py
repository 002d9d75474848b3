"""The reseller pages' gate: a signed-in owner on Enterprise Plus, in live data, as the API's reseller routes
require.

Other plans get a readable 403 page naming the plan needed, and test mode one naming live mode with a
button back to live data, on every reseller URL and method alike (a refused POST is not sent back to a form
the owner could never have used), and other plans no "Reseller" nav entry. The services refuse test mode
again themselves (``services.resellers.access``): this gate only makes the refusal a page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import render_template, request, url_for
from werkzeug.wrappers import Response

from services.errors import LiveModeRequired
from services.resellers.access import ensure_acting_reseller, is_reseller
from services.resellers.errors import PlanUpgradeRequired
from web.dashboard import session
from web.dashboard.session import sign_in_required

P = ParamSpec("P")
R = TypeVar("R")


def reseller_required(view: Callable[P, R]) -> Callable[P, R | Response | tuple[str, int]]:
    @sign_in_required
    @wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R | tuple[str, int]:
        try:
            ensure_acting_reseller(session.actor())
        except PlanUpgradeRequired as error:
            title = "Enterprise Plus plan required"
            return render_template("dashboard/error.html", title=title, message=error.message), 403
        except LiveModeRequired as error:
            back = request.path if request.method == "GET" else url_for("dashboard.reseller")
            return render_template("dashboard/live_only.html", message=error.message, back=back), 403
        return view(*args, **kwargs)

    return guarded


def nav() -> dict[str, bool]:
    """Template context: whether the signed-in owner's plan shows the Reseller section."""
    found = session.signed_in()
    return {"is_reseller": found is not None and is_reseller(found.account)}
