"""A signed-in owner acting on their account through the same services (and rules) as an admin key.

Services take an ``Actor`` (``services.auth``); the owner is one with ``*:*`` authority and no key, so every
rule, limit and event is the API's own, and audit entries carry no key id and name the owner instead
(``Origin.dashboard_user``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models.accounts import Account
from services import audit
from services.keys.scopes import ADMIN
from services.users.sessions import SignedIn


@dataclass(frozen=True)
class Owner:
    """The account's owner, signed in to the dashboard for this request."""

    account: Account
    origin: audit.Origin  # names the owner (``dashboard_user``)
    key_id: None = None
    is_publishable: bool = False
    generation: None = None  # read from Postgres for this request (``sessions.current``)
    livemode: bool = True  # the dashboard's live/test switch

    @property
    def scopes(self) -> list[str]:
        return [ADMIN]

    def confirmed(self, current: str | None) -> Owner:  # noqa: ARG002 - the signature of Actor.confirmed
        """Nothing to confirm: the session was read for this request, not from a snapshot."""
        return self


def as_owner(signed_in: SignedIn, origin: audit.Origin, *, livemode: bool = True) -> Owner:
    """Admin authority over the owner's account, for this request only, in the mode the owner chose."""
    return Owner(signed_in.account, replace(origin, dashboard_user=signed_in.user.email), livemode=livemode)
