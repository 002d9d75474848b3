"""A signed-in owner acting on their account through the same services (and rules) as an admin key.

The services take an ``AuthContext``; the dashboard builds one for the owner with ``*:*`` authority and a
key that exists only in memory (no id, never stored), so every rule, limit, event and audit entry is the
API's own. Audit entries then carry no key id and name the owner instead (``Origin.dashboard_user``).
"""

from __future__ import annotations

from dataclasses import replace

from core import clock
from models.keys import ApiKey, KeyStatus
from services import audit
from services.auth import AuthContext
from services.keys.scopes import ADMIN
from services.users.sessions import SignedIn


def owner_context(signed_in: SignedIn, origin: audit.Origin) -> AuthContext:
    """Admin authority over the owner's account, for this request only."""
    # Deliberately not linked to the account relationship: a transient key attached to a persistent
    # account could be flushed into api_keys by cascade.
    key = ApiKey(
        account_id=signed_in.account.id,
        name="Dashboard",
        scopes=[ADMIN],
        allowed_ips=[],
        status=KeyStatus.ACTIVE.value,
        secret_issued_at=clock.now(),
    )
    acting_origin = replace(origin, dashboard_user=signed_in.user.email)
    return AuthContext(account=signed_in.account, key=key, is_publishable=False, origin=acting_origin)
