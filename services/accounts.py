"""Accounts: opening one, with its first admin key, in one transaction."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account, Tier
from models.audit import AuditEvent
from models.session import transaction
from services import audit
from services.errors import NotFound
from services.keys import lifecycle
from services.keys.scopes import ADMIN


@dataclass(frozen=True)
class OpenedAccount:
    account: Account
    admin_key: lifecycle.IssuedKey
    test_key: lifecycle.IssuedKey  # its test-mode twin (sk_test_/pk_test_), for the sandbox


ADMIN_KEY = lifecycle.KeySpec(name="Admin key", scopes=(ADMIN,))
TEST_ADMIN_KEY = lifecycle.KeySpec(name="Test admin key", scopes=(ADMIN,), livemode=False)


def open_account(email: str, tier: Tier, name: str | None = None) -> OpenedAccount:
    """Create an account on ``tier`` with one admin (``*:*``) key and a test-mode admin key; the billing
    period starts now. The operator opens it, so its owner's email is taken as verified and the plan as
    granted."""
    with transaction() as session:
        account = new_account(session, email, tier, name, verified=True)
        issued = lifecycle.issue(session, account, ADMIN_KEY)
        test = lifecycle.issue(session, account, TEST_ADMIN_KEY)
    return OpenedAccount(account=account, admin_key=issued, test_key=test)


def new_account(
    session: Session,
    email: str,
    tier: Tier,
    name: str | None = None,
    *,
    verified: bool,
    requested: Tier | None = None,
) -> Account:
    """An account row on ``tier`` with no key yet (dashboard sign-ups create their keys on the page)."""
    now = clock.now()
    account = Account(
        owner_email=email.strip().lower(),
        tier=tier.value,
        name=name,
        billing_anchor=now,
        email_verified_at=now if verified else None,
        requested_tier=requested.value if requested is not None else None,
    )
    session.add(account)
    session.flush()
    return account


def grant_plan(account_id: int, tier: Tier) -> Account:
    """Put ``account_id`` on ``tier`` (the operator, or a billing integration, after payment): its limits,
    quota and features follow at once; a requested plan is settled."""
    with transaction() as session:
        account = session.get(Account, account_id, with_for_update=True)
        if account is None:
            raise NotFound(f"No account with id {account_id}.")
        previous = account.tier
        account.tier, account.requested_tier = tier.value, None
        details = {"tier": tier.value, "previousTier": previous}
        audit.record(AuditEvent.PLAN_GRANTED, account_id=account.id, details=details, session=session)
        return account


def issue_admin_key(account_id: int, name: str = "Recovery admin key") -> lifecycle.IssuedKey:
    """A new ``*:*`` key for an existing account: the way back in after revoke-all (operators only)."""
    with transaction() as session:
        account = session.get(Account, account_id)
        if account is None:
            raise NotFound(f"No account with id {account_id}.")
        return lifecycle.issue(session, account, lifecycle.KeySpec(name=name, scopes=(ADMIN,)))
