"""Server-side sessions: ended by sign-out, by a password reset (all of them), by two idle hours and twelve
hours after sign-in, whatever the activity."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core import clock
from models.session import transaction
from models.users import DashboardUser, PasswordResetToken
from services import audit
from services.keys.secrets import hash_secret
from services.users import reset, sessions, signin
from tests.fixtures.db import open_owner

PASSWORD = "correct horse battery staple"
HERE = audit.Origin(ip="192.0.2.30", user_agent="test browser")


def signed_in_twice() -> tuple[DashboardUser, str, str]:
    email = open_owner(PASSWORD)
    user = signin.sign_in(email, PASSWORD, HERE)
    return user, sessions.open_session(user, HERE), sessions.open_session(user, HERE)


@pytest.mark.usefixtures("database_url")
def test_signing_out_ends_that_session_only() -> None:
    _user, first, second = signed_in_twice()

    sessions.end(first)

    assert sessions.current(first) is None
    assert sessions.current(second) is not None


@pytest.mark.usefixtures("database_url")
def test_a_password_reset_ends_every_session() -> None:
    user, first, second = signed_in_twice()
    token = "a-reset-token-for-this-test-only-0000000000"  # the shape of a real one (43 characters)
    with transaction() as session:
        expires = clock.now() + timedelta(hours=1)
        session.add(PasswordResetToken(user_id=user.id, token_hash=hash_secret(token), expires_at=expires))

    reset.reset_password(token, "another long password", HERE)

    assert (sessions.current(first), sessions.current(second)) == (None, None)


@pytest.mark.usefixtures("database_url")
def test_sessions_end_after_two_idle_hours_and_twelve_hours_in_all() -> None:
    _user, busy, idle = signed_in_twice()
    start = clock.now()
    try:
        for hour in range(1, 12):  # one request an hour keeps ``busy`` alive, never past twelve hours
            clock.freeze(start + timedelta(hours=hour))
            assert sessions.current(busy) is not None, hour
            if hour == 2:
                assert sessions.current(idle) is None
        clock.freeze(start + timedelta(hours=12, minutes=1))
        assert sessions.current(busy) is None
    finally:
        clock.unfreeze()


@pytest.mark.usefixtures("database_url")
def test_the_devices_list_shows_open_sessions_with_where_they_came_from() -> None:
    user, first, _second = signed_in_twice()
    sessions.end(first)

    [row] = sessions.open_sessions(user.id)
    assert (row.ip, row.user_agent) == ("192.0.2.30", "test browser")
