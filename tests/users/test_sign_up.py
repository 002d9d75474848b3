"""Self-serve sign-up: plans are granted, not taken; owners prove their email before anything works; the
form answers alike for every address and is rate limited; an account opened in someone else's name is
worth nothing to its opener and is taken over clean by the address's owner."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from datetime import timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select

from core import clock
from models.accounts import Account, Tier
from models.mail import OutboundMail
from models.session import transaction
from models.users import DashboardUser
from services import audit
from services.errors import InvalidField
from services.mail import outbox
from services.users import passwords, reset, signin, signup, verification
from services.users.errors import ResetLinkInvalid, SignInRefused, Throttled
from settings import get_settings
from tests.fixtures.db import add_key, open_owner
from tests.mail.mailbox import Mailbox
from tests.web.test_accounts_cli import flask

LINK = re.compile(r"/dashboard/verify-email/([A-Za-z0-9_-]{20,})")
PASSWORD = "correct horse battery staple"


def network() -> str:
    return f"198.18.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"


def start(email: str, tier: Tier = Tier.PRO, ip: str | None = None) -> None:
    signup.sign_up(email, tier, "Acme", audit.Origin(ip=ip or network()))


def link_in_inbox(mailbox: Mailbox, email: str) -> str:
    outbox.send_due()
    found = LINK.search(mailbox.to(email)[-1].text())
    assert found is not None
    return found[1]


def account_of(email: str) -> Account:
    with transaction() as session:
        user = session.scalars(select(DashboardUser).where(DashboardUser.email == email)).one()
        return session.get_one(Account, user.account_id)


def new_email() -> str:
    return f"owner-{secrets.token_hex(4)}@example.com"


def test_a_sign_up_opens_a_trial_that_nobody_can_use_until_the_link_is_followed(
    client: FlaskClient, mailbox: Mailbox
) -> None:
    email = new_email()
    start(email, Tier.SCALE)
    account = account_of(email)
    key = add_key(account.id, "Made by an operator", ("*:*",))

    assert (account.tier, account.requested_tier, account.email_verified_at) == ("trial", "scale", None)
    refused = client.get("/api/usage", headers=key.headers)
    assert refused.status_code == 401
    assert "confirmed its email" in refused.get_json()["error"]["message"]
    with pytest.raises(SignInRefused):
        signin.sign_in(email, PASSWORD, audit.Origin(ip="192.0.2.9"))

    verification.complete(link_in_inbox(mailbox, email), PASSWORD, audit.Origin(ip="192.0.2.9"))

    assert signin.sign_in(email, PASSWORD, audit.Origin(ip="192.0.2.9")).email == email
    usage = client.get("/api/usage", headers=key.headers).get_json()
    assert (usage["plan"]["tier"], usage["quota"]["limit"]) == ("trial", 100)


def test_the_form_answers_alike_for_new_pending_and_existing_addresses(
    database_url: str, mailbox: Mailbox
) -> None:
    existing, pending, fresh = open_owner(PASSWORD), new_email(), new_email()
    start(pending)
    accounts_before = count_accounts()

    for email in (existing, pending, fresh):
        signup.sign_up(email, Tier.PRO, None, audit.Origin(ip=network()))  # no answer, no error: alike

    outbox.send_due()
    assert count_accounts() == accounts_before + 1  # only the fresh address opened one
    assert "already has one" in mailbox.to(existing)[-1].text()
    assert LINK.search(mailbox.to(fresh)[-1].text())


def work_of(email: str, hashed: list[str]) -> tuple[int, int]:
    """Passwords hashed and emails queued by one sign-up of ``email``."""
    hashes, mails = len(hashed), queued_to(email)
    start(email)
    return len(hashed) - hashes, queued_to(email) - mails


def queued_to(email: str) -> int:
    with transaction() as session:
        count = select(func.count()).select_from(OutboundMail).where(OutboundMail.recipient == email)
        return session.scalar(count) or 0


@pytest.mark.usefixtures("database_url", "frozen_clock")
def test_every_sign_up_hashes_one_password_and_queues_one_email_whoever_has_the_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    existing, pending, fresh = open_owner(PASSWORD), new_email(), new_email()
    start(pending)
    clock.move(timedelta(minutes=1))  # past the minute in which an address is emailed once
    hashed: list[str] = []
    real_hash = passwords.hash_password

    def counted(password: str) -> str:
        hashed.append(password)
        return real_hash(password)

    monkeypatch.setattr(passwords, "hash_password", counted)

    # The hash is most of a sign-up's time: one each, so the time tells nothing (bench/sign_up_timing.py).
    assert {email: work_of(email, hashed) for email in (existing, pending, fresh)} == {
        existing: (1, 1),
        pending: (1, 1),
        fresh: (1, 1),
    }


def test_an_account_opened_in_someone_elses_name_is_taken_over_clean(
    database_url: str, mailbox: Mailbox
) -> None:
    victim = new_email()
    start(victim, ip="203.0.113.66")  # the attacker: no password exists, so no session, key or webhook either
    first_link = link_in_inbox(mailbox, victim)
    start(victim)  # the owner, later: a fresh link, and the attacker's is void

    verification.complete(link_in_inbox(mailbox, victim), PASSWORD, audit.Origin(ip="192.0.2.10"))

    with pytest.raises(ResetLinkInvalid):
        verification.complete(first_link, "attacker's own password", audit.Origin(ip="203.0.113.66"))
    assert account_of(victim).email_verified_at is not None
    assert signin.sign_in(victim, PASSWORD, audit.Origin(ip="192.0.2.10")).email == victim


@pytest.mark.parametrize("tier", [Tier.TRIAL, Tier.ENTERPRISE_PLUS])
def test_enterprise_plus_and_the_trial_itself_are_not_requested(database_url: str, tier: Tier) -> None:
    with pytest.raises(InvalidField):
        start(new_email(), tier)


@pytest.fixture
def ten_sign_ups_an_hour(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SIGN_UPS_PER_HOUR", "10")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.mark.usefixtures("database_url", "ten_sign_ups_an_hour")
def test_sign_ups_are_limited_per_network() -> None:
    ip = network()
    for _ in range(10):
        start(new_email(), ip=ip)
    with pytest.raises(Throttled):
        start(new_email(), ip=ip)


def test_the_operator_grants_the_plan_and_every_limit_follows_at_once(
    client: FlaskClient, mailbox: Mailbox
) -> None:
    email = new_email()
    start(email, Tier.BUSINESS)
    verification.complete(link_in_inbox(mailbox, email), PASSWORD, audit.Origin(ip="192.0.2.11"))
    account = account_of(email)
    key = add_key(account.id, "Reads usage", ("*:*",))

    granted = flask("grant", "--account", str(account.id), "--tier", "business")

    assert granted.returncode == 0, granted.stderr
    usage = client.get("/api/usage", headers=key.headers).get_json()
    assert (usage["plan"]["tier"], usage["quota"]["limit"], usage["rateLimit"]["limitPerMinute"]) == (
        "business",
        40_000,
        93,
    )
    assert account_of(email).requested_tier is None


def count_accounts() -> int:
    with transaction() as session:
        return session.scalar(select(func.count()).select_from(Account)) or 0


@pytest.mark.usefixtures("database_url", "ten_sign_ups_an_hour")
def test_reset_requests_answer_alike_and_are_limited_per_network() -> None:
    ip, known = network(), open_owner(PASSWORD)
    for position in range(10):
        email = known if position % 2 else new_email()
        reset.request_reset(email, audit.Origin(ip=ip))  # no answer, no error, known or not
    with pytest.raises(Throttled):
        reset.request_reset(known, audit.Origin(ip=ip))
