"""The reseller pages' gate: a signed-in owner on Enterprise Plus, as the API's reseller routes require.

Other plans get a readable 403 page naming the plan needed, on every reseller URL and method alike (a
refused POST is not sent back to a form the owner could never have seen), and no "Reseller" nav entry.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import render_template
from werkzeug.wrappers import Response

from services.resellers.access import ensure_reseller, is_reseller
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
            ensure_reseller(session.actor().account)
        except PlanUpgradeRequired as error:
            title = "Enterprise Plus plan required"
            return render_template("dashboard/error.html", title=title, message=error.message), 403
        return view(*args, **kwargs)

    return guarded


def nav() -> dict[str, bool]:
    """Template context: whether the signed-in owner's plan shows the Reseller section."""
    found = session.signed_in()
    return {"is_reseller": found is not None and is_reseller(found.account)}
