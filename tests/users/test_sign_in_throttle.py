"""Sign-in guesses are counted before any password is checked, atomically, per email and per client
network (an IPv6 client by its /64); a success gives its attempt back; nothing unbounded is stored."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select

from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from services import audit
from services.users import signin, throttle
from services.users.errors import SignInRefused, SignInThrottled
from tests.fixtures.db import open_owner

PASSWORD = "correct horse battery"


def owner(database_url: str) -> str:
    return open_owner(PASSWORD)


def attempt(email: str, password: str, ip: str) -> str:
    try:
        signin.sign_in(email, password, audit.Origin(ip=ip))
    except SignInRefused:
        return "refused"
    except SignInThrottled:
        return "throttled"
    return "signed in"


def test_a_burst_of_concurrent_guesses_reaches_the_password_check_exactly_five_times(
    database_url: str,
) -> None:
    email = owner(database_url)
    ip = f"198.51.100.{secrets.randbelow(200) + 1}"
    with ThreadPoolExecutor(16) as pool:
        outcomes = list(pool.map(lambda n: attempt(email, f"guess {n}", ip), range(16)))

    assert outcomes.count("refused") == throttle.EMAIL_FAILURES
    assert outcomes.count("throttled") == 16 - throttle.EMAIL_FAILURES
    assert attempt(email, PASSWORD, ip) == "throttled"  # the right password is not told apart


def test_a_success_gives_its_attempt_back(database_url: str) -> None:
    email = owner(database_url)
    ip = "198.51.100.250"
    assert [attempt(email, "wrong", ip) for _ in range(2)] == ["refused"] * 2
    assert attempt(email, PASSWORD, ip) == "signed in"
    assert [attempt(email, "wrong", ip) for _ in range(5)] == ["refused"] * 5


@pytest.mark.usefixtures("database_url")
def test_an_ipv6_guesser_is_counted_by_its_64_across_accounts() -> None:
    prefix = f"2001:db8:{secrets.randbelow(60000):x}:1"
    emails = [f"nobody-{n}-{secrets.token_hex(3)}@example.com" for n in range(throttle.IP_FAILURES)]
    outcomes = [attempt(email, "guess", f"{prefix}::{n + 1:x}") for n, email in enumerate(emails)]

    assert outcomes == ["refused"] * throttle.IP_FAILURES
    assert attempt("one-more@example.com", "guess", f"{prefix}:ffff::9") == "throttled"


@pytest.mark.usefixtures("database_url")
def test_an_endless_email_is_cut_before_it_is_stored() -> None:
    endless = "x" * 10_000 + "@example.com"
    assert attempt(endless, "guess", "198.51.100.251") == "refused"

    with transaction() as session:
        stored = session.scalars(
            select(AuditEntry.details["email"].astext).where(
                AuditEntry.event == AuditEvent.USER_SIGN_IN_FAILED.value,
                AuditEntry.details["email"].astext.like("xxxx%"),
            )
        ).all()
    assert stored
    assert {len(email) for email in stored} == {signin.MAX_EMAIL}
