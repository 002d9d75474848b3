"""Accounts: opening one, with its first admin key, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass

from core import clock
from models.accounts import Account, Tier
from models.session import transaction
from services.errors import NotFound
from services.keys import lifecycle
from services.keys.scopes import ADMIN


@dataclass(frozen=True)
class OpenedAccount:
    account: Account
    admin_key: lifecycle.IssuedKey


def open_account(email: str, tier: Tier, name: str | None = None) -> OpenedAccount:
    """Create an account on ``tier`` with one admin (``*:*``) key; the billing period starts now."""
    with transaction() as session:
        account = Account(
            owner_email=email.strip().lower(), tier=tier.value, name=name, billing_anchor=clock.now()
        )
        session.add(account)
        session.flush()
        issued = lifecycle.issue(session, account, lifecycle.KeySpec(name="Admin key", scopes=(ADMIN,)))
    return OpenedAccount(account=account, admin_key=issued)


def issue_admin_key(account_id: int, name: str = "Recovery admin key") -> lifecycle.IssuedKey:
    """A new ``*:*`` key for an existing account: the way back in after revoke-all (operators only)."""
    with transaction() as session:
        account = session.get(Account, account_id)
        if account is None:
            raise NotFound(f"No account with id {account_id}.")
        return lifecycle.issue(session, account, lifecycle.KeySpec(name=name, scopes=(ADMIN,)))
