"""The Enterprise Plus routes' common gate: each reseller blueprint refuses other plans before anything else.

The plan is checked before the scope (a blueprint ``before_request`` runs after authentication and before
the view's ``@require_scope``): to a key of another plan no scope would help, so it learns the real reason,
PLAN_UPGRADE_REQUIRED, on every route of the tier, whatever the id in the path.
"""

from __future__ import annotations

from flask import Blueprint

from services.resellers.access import ensure_reseller
from web.auth import current_auth


def reseller_blueprint(name: str, url_prefix: str) -> Blueprint:
    blueprint = Blueprint(name, __name__, url_prefix=url_prefix)
    blueprint.before_request(_only_resellers)
    return blueprint


def _only_resellers() -> None:
    ensure_reseller(current_auth().account)
