"""Opening an account from the dashboard, and giving an operator-opened account its owner's login."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from models.accounts import Account, Tier
from models.audit import AuditEvent
from models.session import transaction
from models.users import DashboardUser
from services import accounts, audit
from services.errors import NotFound
from services.users import passwords
from services.users.errors import EmailTaken

TAKEN = "An account with this email already exists. Sign in, or reset its password."


def normalized(email: str) -> str:
    return email.strip().lower()


def sign_up(email: str, password: str, tier: Tier, name: str | None, origin: audit.Origin) -> DashboardUser:
    """A new account on ``tier`` with its owner's login; no key yet (the owner creates keys on the page).

    ``email`` must already be a syntactically valid address (the form checks it); the password is checked
    here. The account and its login commit together, so a taken email leaves no orphan account behind.
    """
    passwords.check_strength(password)
    email = normalized(email)
    try:
        with transaction() as session:
            _check_free(session, email)
            account = accounts.new_account(session, email, tier, name)
            user = _new_user(session, account, email, password)
            details = {"email": email, "tier": tier.value}
            audit.record(
                AuditEvent.USER_SIGNED_UP,
                account_id=account.id,
                origin=origin,
                details=details,
                session=session,
            )
    except IntegrityError:  # two sign-ups with one email at the same instant: the unique index decides
        raise EmailTaken(TAKEN) from None
    return user


def add_owner(account_id: int, password: str) -> DashboardUser:
    """The owner's login for an account opened by the operator CLI (signs in with the account's email)."""
    passwords.check_strength(password)
    try:
        with transaction() as session:
            account = session.get(Account, account_id)
            if account is None:
                raise NotFound(f"No account with id {account_id}.")
            _check_free(session, account.owner_email)
            return _new_user(session, account, account.owner_email, password)
    except IntegrityError:
        raise EmailTaken("This account already has a dashboard login, or its email is taken.") from None


def email_free(email: str) -> bool:
    with transaction() as session:
        return (
            session.scalar(select(DashboardUser.id).where(DashboardUser.email == normalized(email))) is None
        )


def _check_free(session: Session, email: str) -> None:
    if session.scalar(select(DashboardUser.id).where(DashboardUser.email == email)) is not None:
        raise EmailTaken(TAKEN)


def _new_user(session: Session, account: Account, email: str, password: str) -> DashboardUser:
    user = DashboardUser(account_id=account.id, email=email, password_hash=passwords.hash_password(password))
    session.add(user)
    session.flush()
    return user
