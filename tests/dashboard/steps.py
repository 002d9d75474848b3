"""What a person does on the dashboard, as reusable steps (each waits for what the person would see)."""

from __future__ import annotations

import secrets

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery staple"


def new_email() -> str:
    return f"owner-{secrets.token_hex(4)}@example.com"


def sign_up(page: Page, email: str | None = None, tier: str = "business") -> str:
    """Create an account through the form; lands on the Keys page, signed in. Returns the email."""
    email = email or new_email()
    page.goto("/dashboard/sign-up")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Plan").select_option(tier)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    return email


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
