"""Forgotten passwords: a single-use link by email, valid for an hour, stored only as its SHA-256.

``request_reset`` answers the same whether or not the email has an account (the page says "if an account
exists"), sends at most one email per address and minute, so the form cannot be used to flood
someone's inbox, and takes ``SIGN_UPS_PER_HOUR`` requests per client network and hour.
``reset_password`` spends the token, sets the new password, voids every other pending link of that user
and ends every session of that user (``services.users.sessions``).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from core import clock
from models.audit import AuditEvent
from models.session import transaction
from models.users import DashboardUser, PasswordResetToken
from services import audit, once_a_minute
from services.broker import SEND_DUE_MAIL_TASK, send_after_commit
from services.keys.secrets import hash_secret
from services.mail import outbox, render
from services.users import links, passwords, per_network, throttle, verification
from services.users.signup import normalized
from settings import get_settings

TEMPLATES = Path(__file__).parent / "templates"
LINK_LIFETIME = timedelta(hours=1)
SUBJECT = "Reset your verimail password"
RESET_PATH = "/dashboard/reset-password/"
LINK_PLACEHOLDER = "VERIMAIL-SEALED-RESET-LINK"
INVALID = "This reset link is not valid any more: it was used, it expired, or a newer one was sent."


def request_reset(email: str, origin: audit.Origin) -> None:
    """Email a reset link if ``email`` has a login (and none was sent to it this minute)."""
    email = normalized(email)
    refusal = "Too many reset requests from your network in the last hour. Try again later."
    per_network.count("password-reset", origin.ip, get_settings().sign_ups_per_hour, refusal)
    if not once_a_minute.first_this_minute("password-reset", email, if_redis_down=False):
        return
    token = links.new_token()
    with transaction() as session:
        user = session.scalars(select(DashboardUser).where(DashboardUser.email == email)).one_or_none()
        if user is None:
            return
        now = clock.now()
        session.add(
            PasswordResetToken(user_id=user.id, token_hash=hash_secret(token), expires_at=now + LINK_LIFETIME)
        )
        outbox.queue(session, user.account_id, _draft(email, token))
        # The person is waiting at the form: send now, not at the next sweep (which retries if this is lost).
        send_after_commit(session, SEND_DUE_MAIL_TASK)
        details = {"email": email}
        audit.record(
            AuditEvent.USER_PASSWORD_RESET_REQUESTED,
            account_id=user.account_id,
            origin=origin,
            details=details,
            session=session,
        )


def check_link(token: str) -> None:
    """Raise ``ResetLinkInvalid`` unless ``token`` can still be used (the form is shown only then)."""
    with transaction() as session:
        links.usable(session, PasswordResetToken, token, INVALID, lock=False)


def reset_password(token: str, new_password: str, origin: audit.Origin) -> DashboardUser:
    """Spend ``token`` and set ``new_password``; the user's other sessions and links stop working."""
    passwords.check_strength(new_password)
    with transaction() as session:
        user = links.set_password(session, PasswordResetToken, token, INVALID, new_password)
        verification.mark_verified(session, user.account_id, origin)  # the link proved the inbox is theirs
        details = {"email": user.email, "via": "reset link"}
        audit.record(
            AuditEvent.USER_PASSWORD_CHANGED,
            account_id=user.account_id,
            origin=origin,
            details=details,
            session=session,
        )
    throttle.clear(user.email)
    return user


def _draft(email: str, token: str) -> outbox.Draft:
    """The email with its link sealed: the outbox row never holds the token in clear."""
    link = get_settings().base_url + RESET_PATH + token
    context = {"email": email, "link": LINK_PLACEHOLDER, "minutes": int(LINK_LIFETIME.total_seconds() // 60)}
    return render.draft(
        TEMPLATES,
        "password_reset",
        context,
        recipient=email,
        subject=SUBJECT,
        sealed={LINK_PLACEHOLDER: link},
    )
