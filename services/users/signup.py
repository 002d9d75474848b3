"""Opening an account from the dashboard, and giving an operator-opened account its owner's login.

A sign-up answers the same for every address, so the form tells nobody who has an account: a new address
gets an account on the trial with the plan asked for beside it, and a link to confirm the email and choose
the password (``services.users.verification``); an address waiting for that gets a fresh link; an address
that already signs in gets a note saying so, with the ways back in. Each is one email through the outbox,
and each hashes one password, the cost that dominates the answer's time, so the time tells nobody either
(``bench/sign_up_timing.py``). At most one email per address and minute, and ``SIGN_UPS_PER_HOUR`` (10)
sign-ups per client network and hour.

Plans are granted, not taken: a paid plan starts when the operator (or a billing integration) grants it
(``services.accounts.grant_plan``); Enterprise Plus is never offered here.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from models.accounts import PAID_TIERS, Account, Tier
from models.audit import AuditEvent
from models.session import transaction
from models.users import DashboardUser
from services import accounts, audit, once_a_minute
from services.broker import SEND_DUE_MAIL_TASK, send_after_commit
from services.errors import InvalidField, NotFound
from services.mail import outbox, render
from services.users import passwords, per_network, verification
from services.users.errors import EmailTaken
from settings import get_settings

MAX_EMAIL = 254
# Plans a person may ask for on the form; Enterprise Plus is opened by the operator only.
REQUESTABLE: tuple[Tier, ...] = tuple(tier for tier in PAID_TIERS if tier is not Tier.ENTERPRISE_PLUS)
TEMPLATES = Path(__file__).parent / "templates"


def normalized(email: str) -> str:
    return email.strip().lower()[:MAX_EMAIL]


def sign_up(email: str, requested: Tier, name: str | None, origin: audit.Origin) -> None:
    """Start a sign-up for ``email``; the answer is an email to that address, whoever has it."""
    if requested not in REQUESTABLE:
        raise InvalidField("tier", "Choose one of the plans offered; Enterprise Plus is opened by our team.")
    refusal = "Too many sign-ups from your network in the last hour. Try again later."
    per_network.count("sign-up", origin.ip, get_settings().sign_ups_per_hour, refusal)
    email = normalized(email)
    if not once_a_minute.first_this_minute("sign-up", email, if_redis_down=False):
        return
    # A new account needs this hash (of a password nobody knows: its owner chooses one through the link);
    # the other answers make it too and drop it, or they would come back a hash's time sooner.
    password_hash = passwords.hash_password(secrets.token_urlsafe(32))
    try:
        with transaction() as session:
            user = session.scalars(select(DashboardUser).where(DashboardUser.email == email)).one_or_none()
            if user is None:
                pending = NewAccount(email, requested, name[:200] if name else None, password_hash)
                user = _open_pending(session, pending, origin)
            _answer(session, user)
    except IntegrityError:  # two sign-ups of one address at the same instant: the first one's email stands
        return


@dataclass(frozen=True)
class NewAccount:
    """An account to open: as the form asked for it, with its owner's login not yet usable."""

    email: str
    requested: Tier
    name: str | None
    password_hash: str


def _open_pending(session: Session, pending: NewAccount, origin: audit.Origin) -> DashboardUser:
    email, requested = pending.email, pending.requested
    account = accounts.new_account(
        session, email, Tier.TRIAL, pending.name, verified=False, requested=requested
    )
    user = _new_user(session, account, email, pending.password_hash)
    details = {"email": email, "requestedTier": requested.value}
    audit.record(
        AuditEvent.USER_SIGNED_UP, account_id=account.id, origin=origin, details=details, session=session
    )
    return user


def _answer(session: Session, user: DashboardUser) -> None:
    account = session.get_one(Account, user.account_id)
    if account.email_verified_at is None:
        verification.queue_link(session, user)
        return
    context = {"email": user.email, "sign_in": get_settings().base_url + "/dashboard/sign-in"}
    subject = "You already have an account"
    draft = render.draft(TEMPLATES, "already_signed_up", context, recipient=user.email, subject=subject)
    outbox.queue(session, user.account_id, draft)
    send_after_commit(session, SEND_DUE_MAIL_TASK)


def add_owner(account_id: int, password: str) -> DashboardUser:
    """The owner's login for an account opened by the operator CLI (signs in with the account's email)."""
    passwords.check_strength(password)
    try:
        with transaction() as session:
            account = session.get(Account, account_id)
            if account is None:
                raise NotFound(f"No account with id {account_id}.")
            _check_free(session, account.owner_email)
            return _new_user(session, account, account.owner_email, passwords.hash_password(password))
    except IntegrityError:
        raise EmailTaken("This account already has a dashboard login, or its email is taken.") from None


def email_free(email: str) -> bool:
    with transaction() as session:
        return (
            session.scalar(select(DashboardUser.id).where(DashboardUser.email == normalized(email))) is None
        )


def _check_free(session: Session, email: str) -> None:
    if session.scalar(select(DashboardUser.id).where(DashboardUser.email == email)) is not None:
        raise EmailTaken("An account with this email already exists. Sign in, or reset its password.")


def _new_user(session: Session, account: Account, email: str, password_hash: str) -> DashboardUser:
    user = DashboardUser(account_id=account.id, email=email, password_hash=password_hash)
    session.add(user)
    session.flush()
    return user
