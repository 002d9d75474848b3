"""Who may use the reseller routes: accounts on Enterprise Plus, in live mode, and nobody else whatever
their scopes.

Test mode never touches reseller objects: sub-users are real customers' accounts with live keys, their
tiers feed the commission bill, white-label and custom domains change what real customers see (and
verifying a domain asks real DNS). So every reseller use-case takes the caller and refuses test mode
(LIVE_MODE_REQUIRED) here, in the service, whichever view called it.
"""

from __future__ import annotations

from models.accounts import Account, Tier
from services.auth import Actor, require_live
from services.resellers.errors import PlanUpgradeRequired
from services.usage.plans import plan_for

IN_LIVE_MODE_ONLY = (
    "Reseller features (sub-users, commissions, white-label, custom domains) work in live mode only: they "
    "act on real customers' accounts, billing and domains, which test mode never touches."
)


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


def ensure_acting_reseller(actor: Actor) -> None:
    """The plan (PLAN_UPGRADE_REQUIRED: a live key would not help either), then the mode
    (LIVE_MODE_REQUIRED): every reseller operation's first step."""
    ensure_reseller(actor.account)
    require_live(actor, IN_LIVE_MODE_ONLY)
