"""What a person does on the dashboard, as reusable steps (each waits for what the person would see)."""

from __future__ import annotations

import re
import secrets
import time

from playwright.sync_api import Page, expect
from sqlalchemy import select

from models.accounts import Tier
from models.session import transaction
from models.users import DashboardUser
from services import accounts
from services.users import signup
from tests.dashboard.service import RUNNING

PASSWORD = "correct horse battery staple"
VERIFY_LINK = re.compile(r"/dashboard/verify-email/[A-Za-z0-9_-]+")


def new_email() -> str:
    return f"owner-{secrets.token_hex(4)}@example.com"


def sign_up(page: Page, email: str | None = None, tier: str = "business") -> str:
    """Open an account as a person does (the form, the emailed link, a password), then let the operator
    grant ``tier``; lands on the first-run page, signed in. Returns the email."""
    email = email or new_email()
    request_link(page, email, tier if Tier(tier) in signup.REQUESTABLE else Tier.ENTERPRISE.value)
    page.goto(emailed_path(email, VERIFY_LINK))
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm and sign in").click()
    expect(page.get_by_role("heading", name="Welcome to verimail")).to_be_visible()
    grant(email, Tier(tier))
    page.reload()
    return email


def request_link(page: Page, email: str, tier: str = "business") -> None:
    page.goto("/dashboard/sign-up")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Plan you want").select_option(tier)
    page.get_by_role("button", name="Email me the link").click()
    expect(page.get_by_role("heading", name="Check your inbox")).to_be_visible()


def emailed_path(email: str, link: re.Pattern[str], timeout: float = 20.0) -> str:
    """The path of the newest link matching ``link`` emailed to ``email`` (the worker sends it)."""
    mailbox = RUNNING[-1].mailbox
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        found = [match for mail in mailbox.to(email) if (match := link.search(mail.text()))]
        if found:
            return found[-1][0]
        time.sleep(0.1)
    raise AssertionError(f"no link emailed to {email} within {timeout} s")


def grant(email: str, tier: Tier) -> None:
    """The operator grants the plan (``flask accounts grant`` calls the same service)."""
    with transaction() as session:
        account_id = session.scalars(
            select(DashboardUser.account_id).where(DashboardUser.email == email)
        ).one()
    accounts.grant_plan(account_id, tier)


def sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    page.goto("/dashboard/sign-in")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()


def create_key(page: Page, name: str, scopes: tuple[str, ...] = ()) -> str:
    """Create a key on the Keys page; returns the secret the page shows (once)."""
    page.goto("/dashboard/keys")
    page.get_by_label("Name").fill(name)
    for scope in scopes:
        page.get_by_role("checkbox", name=scope, exact=True).check()
    page.get_by_role("button", name="Create key").click()
    expect(page.get_by_role("heading", name=f"Key created: {name}")).to_be_visible()
    return page.get_by_test_id("secret-key").input_value()
