"""Who speaks for an account: this service, or (white-label) the Enterprise Plus reseller it belongs to.

Results name their provider in ``metadata`` (spec 2.3); so do webhook payloads, emails and the webhook
``User-Agent``. A reseller's own account and its sub-users wear the reseller's brand while its white-label
switch is on, and on requests that came through one of its verified custom domains (its domain is its
brand, switch or not, as long as it saved its values). Every other account wears the service's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from models.accounts import Account, Tier
from models.resellers import WhiteLabel
from models.session import transaction
from services import snapshots
from settings import get_settings


@dataclass(frozen=True)
class Brand:
    provider: str
    support: str
    documentation: str
    white_label: bool  # True: nothing that names this service may reach the client

    def metadata(self) -> dict[str, str]:
        """The spec 2.3 fields, as results and webhook payloads carry them."""
        return {"provider": self.provider, "support": self.support, "documentation": self.documentation}


def service_brand() -> Brand:
    own = get_settings().brand
    return Brand(own.provider, own.support, own.documentation, white_label=False)


def reseller_of(account: Account) -> int | None:
    """The reseller whose brand and domains ``account`` uses: its parent, itself (Enterprise Plus) or none."""
    if account.parent_account_id is not None:
        return account.parent_account_id
    return account.id if account.tier == Tier.ENTERPRISE_PLUS.value else None


def brand_in(session: Session, account: Account, *, via_custom_domain: bool = False) -> Brand:
    """``account``'s brand, read in the caller's transaction (no query for accounts outside a reseller)."""
    reseller_id = reseller_of(account)
    return _from_row(
        session.get(WhiteLabel, reseller_id) if reseller_id is not None else None, via_custom_domain
    )


def _from_row(row: WhiteLabel | None, via_custom_domain: bool) -> Brand:
    if row is None or not (row.enabled or via_custom_domain):
        return service_brand()
    if row.provider is None or row.support is None or row.documentation is None:
        return service_brand()  # a custom domain of a reseller that never saved its values
    return Brand(row.provider, row.support, row.documentation, white_label=True)


# By (reseller, via a custom domain): the web tier's per-request read, kept like the API keys it goes with.
_BRANDS: snapshots.Snapshots[tuple[int, bool], Brand] = snapshots.Snapshots()


def brand_of(account: Account, *, via_custom_domain: bool = False) -> Brand:
    """``account``'s brand in a transaction of its own (the web tier's per-request read; a snapshot,
    ``services.snapshots``)."""
    reseller_id = reseller_of(account)
    if reseller_id is None:
        return service_brand()

    def load() -> Brand:
        with transaction() as session:
            return brand_in(session, account, via_custom_domain=via_custom_domain)

    return _BRANDS.get((reseller_id, via_custom_domain), load).value or service_brand()


def brand_of_reseller(reseller_id: int | None) -> Brand:
    """The brand on a reseller's verified domain (its domain is its brand, switch or not), for what is served
    there without a key; the service's own elsewhere."""
    if reseller_id is None:
        return service_brand()
    with transaction() as session:
        return _from_row(session.get(WhiteLabel, reseller_id), via_custom_domain=True)


def brand_of_id(session: Session, account_id: int) -> Brand:
    """The brand of the account ``account_id`` (webhook deliveries and emails know only the id)."""
    return brand_in(session, session.get_one(Account, account_id))
