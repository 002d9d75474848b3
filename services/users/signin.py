"""Signing in and out: throttled per email and IP, every attempt written to the audit log."""

from __future__ import annotations

from sqlalchemy import select

from core import clock
from models.audit import AuditEvent
from models.session import transaction
from models.users import DashboardUser
from services import audit, once_a_minute
from services.users import passwords, throttle
from services.users.errors import SignInRefused, SignInThrottled
from services.users.signup import normalized

REFUSED = "The email or password is not right."
MAX_EMAIL = 254  # no address is longer (RFC 5321); a longer "email" is cut before it is counted or stored


def sign_in(email: str, password: str, origin: audit.Origin) -> DashboardUser:
    """The user behind ``email`` if ``password`` is theirs, else ``SignInRefused`` or ``SignInThrottled``."""
    email = normalized(email)[:MAX_EMAIL]
    user = _find(email)
    try:
        throttle.count_attempt(email, origin.ip)
    except SignInThrottled:
        # A flood against a locked email writes one row per minute, not one per request.
        if once_a_minute.first_this_minute("sign-in-throttled", email, if_redis_down=True):
            _failed(user, email, origin, "throttled")
        raise
    # Verify against a dummy hash when nobody has this email, so timing does not tell who has an account.
    matched = passwords.verify(user.password_hash if user else passwords.DUMMY_HASH, password)
    if user is None or not matched:
        _failed(user, email, origin, "wrong password" if user else "unknown email")
        raise SignInRefused(REFUSED)
    throttle.give_back(email, origin.ip)
    return _note_success(user, password, origin)


def sign_out(user: DashboardUser, origin: audit.Origin) -> None:
    audit.record(
        AuditEvent.USER_SIGNED_OUT, account_id=user.account_id, origin=origin, details={"email": user.email}
    )


def _find(email: str) -> DashboardUser | None:
    with transaction() as session:
        return session.scalars(select(DashboardUser).where(DashboardUser.email == email)).one_or_none()


def _failed(user: DashboardUser | None, email: str, origin: audit.Origin, reason: str) -> None:
    # An unknown email names no account: kept for operators (account_id NULL), as for unknown keys.
    account_id = user.account_id if user else None
    details = {"email": email, "reason": reason}
    audit.record(AuditEvent.USER_SIGN_IN_FAILED, account_id=account_id, origin=origin, details=details)


def _note_success(user: DashboardUser, password: str, origin: audit.Origin) -> DashboardUser:
    with transaction() as session:
        row = session.get_one(DashboardUser, user.id, with_for_update=True)
        row.last_sign_in_at = clock.now()
        if passwords.needs_rehash(row.password_hash):
            row.password_hash = passwords.hash_password(password)
        details = {"email": row.email}
        audit.record(
            AuditEvent.USER_SIGNED_IN,
            account_id=row.account_id,
            origin=origin,
            details=details,
            session=session,
        )
        return row
