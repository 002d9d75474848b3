"""Owners prove their email is theirs by a link, and choose their password there.

A self-serve sign-up asks only for an email (a name, the plan wanted): the account exists from then on, but
nobody can sign in to it and its keys would not work, until whoever reads that inbox follows the emailed
link and chooses the password. So an account opened in someone else's name is worth nothing to its opener:
there is no password to sign in with, no session, no key, no webhook; the real owner who follows the link
takes it over with nothing left behind but the name and plan that were asked for, shown on the page.

Links are single-use, expire after ``LINK_LIFETIME``, are stored as SHA-256 only, travel sealed in the
outbox, and a newer link voids the older ones. A password reset link proves the same thing and verifies
the account too (``services.users.reset``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.session import transaction
from models.users import DashboardUser, EmailVerificationToken
from services import audit
from services.broker import SEND_DUE_MAIL_TASK, send_after_commit
from services.keys.secrets import hash_secret
from services.mail import outbox, render
from services.users import links, passwords
from settings import get_settings

LINK_LIFETIME = timedelta(days=2)
VERIFY_PATH = "/dashboard/verify-email/"
LINK_PLACEHOLDER = "VERIMAIL-SEALED-VERIFY-LINK"
TEMPLATES = Path(__file__).parent / "templates"
SUBJECT = "Confirm your email and choose your password"
INVALID = "This link is not valid any more: it was used, it expired, or a newer one was sent. Sign up again."


@dataclass(frozen=True)
class Pending:
    """What the link's page shows before the password is chosen: whose account, as it was asked for."""

    email: str
    name: str | None
    requested_tier: str | None


def queue_link(session: Session, user: DashboardUser) -> None:
    """Email ``user`` a fresh link (older ones stop working), in the caller's transaction."""
    now = clock.now()
    links.void_pending(session, EmailVerificationToken, user.id, now)
    token = links.new_token()
    session.add(
        EmailVerificationToken(user_id=user.id, token_hash=hash_secret(token), expires_at=now + LINK_LIFETIME)
    )
    link = get_settings().base_url + VERIFY_PATH + token
    context = {"email": user.email, "link": LINK_PLACEHOLDER, "days": LINK_LIFETIME.days}
    draft = render.draft(
        TEMPLATES,
        "verify_email",
        context,
        recipient=user.email,
        subject=SUBJECT,
        sealed={LINK_PLACEHOLDER: link},
    )
    outbox.queue(session, user.account_id, draft)
    send_after_commit(session, SEND_DUE_MAIL_TASK)


def check_link(token: str) -> Pending:
    """What the link leads to; ``ResetLinkInvalid`` when it cannot be used (the form is shown only then)."""
    with transaction() as session:
        row = links.usable(session, EmailVerificationToken, token, INVALID, lock=False)
        user = session.get_one(DashboardUser, row.user_id)
        account = session.get_one(Account, user.account_id)
        return Pending(user.email, account.name, account.requested_tier)


def complete(token: str, password: str, origin: audit.Origin) -> DashboardUser:
    """Spend ``token``: the account's email is verified and ``password`` becomes its owner's."""
    passwords.check_strength(password)
    with transaction() as session:
        user = links.set_password(session, EmailVerificationToken, token, INVALID, password)
        mark_verified(session, user.account_id, origin)
        return user


def mark_verified(session: Session, account_id: int, origin: audit.Origin) -> None:
    """The owner proved the email is theirs (a verification or reset link): the account's keys may work."""
    account = session.get_one(Account, account_id, with_for_update=True)
    if account.email_verified_at is not None:
        return
    account.email_verified_at = clock.now()
    details = {"email": account.owner_email}
    audit.record(
        AuditEvent.USER_EMAIL_VERIFIED, account_id=account.id, origin=origin, details=details, session=session
    )
