"""The scopes of spec 5.3 and the one rule for matching them.

A granted scope ``area:action`` covers a required ``area:action``; ``area:*`` covers every action of
its area (``bulk:*``); ``*:*`` covers everything. Nothing else is a wildcard: ``*:read`` is not a scope.
"""

from __future__ import annotations

from collections.abc import Iterable

ADMIN = "*:*"
SCOPES: tuple[str, ...] = (
    "validate:read",
    "validate:write",
    "bulk:*",
    "webhooks:read",
    "webhooks:write",
    "analytics:read",
    "keys:write",
    # The suppression list and its inbound sources; not in spec 5.3.
    "suppression:read",
    "suppression:write",
    # Enterprise Plus reseller routes (sub-users, commissions, white-label, custom domains); not in spec 5.3.
    "resellers:read",
    "resellers:write",
    ADMIN,
)
RESELLER_SCOPES: tuple[str, ...] = ("resellers:read", "resellers:write")
# Scopes that hand out power over other keys or other accounts: only an admin key grants them, and managing
# a key that holds one (rotating it reveals its new secret) needs them too.
PRIVILEGED: tuple[str, ...] = (ADMIN, "keys:write", *RESELLER_SCOPES)
# Least privilege: a key created without ``scopes`` can validate and read results, nothing more.
DEFAULT_SCOPES: tuple[str, ...] = ("validate:read", "validate:write")


def grants(granted: str, required: str) -> bool:
    """Whether one granted scope covers one required scope."""
    if granted in (ADMIN, required):
        return True
    area, _, action = granted.partition(":")
    return action == "*" and required.partition(":")[0] == area


def for_account(is_reseller: bool) -> tuple[str, ...]:
    """The scopes a key of an account may hold: the reseller scopes only on a plan with reseller features."""
    return SCOPES if is_reseller else tuple(scope for scope in SCOPES if scope not in RESELLER_SCOPES)


def allows(granted: Iterable[str], required: str) -> bool:
    """Whether any of the granted scopes covers ``required``."""
    return any(grants(scope, required) for scope in granted)
