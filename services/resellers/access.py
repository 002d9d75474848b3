"""Who may use the reseller routes: accounts on Enterprise Plus, and nobody else whatever their scopes."""

from __future__ import annotations

from models.accounts import Account, Tier
from services.resellers.errors import PlanUpgradeRequired
from services.usage.plans import plan_for


def is_reseller(account: Account) -> bool:
    return account.tier == Tier.ENTERPRISE_PLUS.value


def ensure_reseller(account: Account) -> None:
    """Raise PLAN_UPGRADE_REQUIRED unless ``account`` is on Enterprise Plus (spec 4.9, 4.10)."""
    if not is_reseller(account):
        raise PlanUpgradeRequired(
            f"Reseller features (sub-users, commissions, white-label, custom domains) need the Enterprise "
            f"Plus plan; this account is on {plan_for(account.tier).name}.",
            tier=account.tier,
            required_tier=Tier.ENTERPRISE_PLUS.value,
        )
