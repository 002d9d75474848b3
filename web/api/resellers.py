"""The Enterprise Plus routes' common gate: each reseller blueprint refuses other plans and test mode before
anything else.

The plan, then the mode, are checked before the scope (a blueprint ``before_request`` runs after
authentication and before the view's ``@require_scope``): to a key of another plan, or to a test key, no
scope would help, so it learns the real reason, PLAN_UPGRADE_REQUIRED or LIVE_MODE_REQUIRED, on every
route of the tier, whatever the id in the path. The services refuse test mode again themselves, so a view
outside these blueprints cannot reach them in test mode either.
"""

from __future__ import annotations

from flask import Blueprint

from services.errors import LiveModeRequired
from services.resellers.access import ensure_acting_reseller
from services.resellers.errors import PlanUpgradeRequired
from web.auth import current_auth
from web.openapi import GATE_ERRORS


def reseller_blueprint(name: str, url_prefix: str) -> Blueprint:
    blueprint = Blueprint(name, __name__, url_prefix=url_prefix)
    blueprint.before_request(_only_resellers)
    return blueprint


def _only_resellers() -> None:
    ensure_acting_reseller(current_auth())


setattr(_only_resellers, GATE_ERRORS, (PlanUpgradeRequired, LiveModeRequired))
