"""An owner sets the web pages a publishable key serves on the Keys page: at creation and later, stored as
browsers send them, a wildcard refused with the reason, every change in the audit log."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.dashboard.browser import accessibility_violations
from tests.dashboard.layout import clipped
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_up

pytestmark = TIME_LIMIT


def test_an_owner_lists_a_keys_pages_changes_them_and_finds_each_change_audited(page: Page) -> None:
    sign_up(page)
    page.goto("/dashboard/keys")
    page.get_by_label("Name").fill("Sign-up form")
    page.get_by_label("Allowed origins", exact=False).first.fill("https://Shop.Example.com/")
    page.get_by_role("button", name="Create key").click()
    page.get_by_role("link", name="I have stored it: back to keys").click()
    card = page.locator("article").filter(has=page.get_by_role("heading", name="Sign-up form"))
    listed = card.locator("[data-testid^=origins-]")
    expect(listed).to_have_text("https://shop.example.com")

    field = card.get_by_label("Allowed origins of “Sign-up form”")
    field.fill("https://shop.example.com\nhttp://localhost:3000")
    card.get_by_role("button", name="Save origins").click()
    expect(page.get_by_role("status")).to_have_text(
        "The publishable key of “Sign-up form” may now be used on pages of "
        "https://shop.example.com, http://localhost:3000."
    )
    assert accessibility_violations(page) == []
    assert clipped(page) == []

    field.fill("https://*.example.com")
    card.get_by_role("button", name="Save origins").click()
    expect(page.get_by_role("alert")).to_contain_text("no path and no wildcard")
    expect(listed).to_have_text("https://shop.example.com, http://localhost:3000")  # nothing changed

    page.get_by_role("link", name="Audit log").click()
    updated = page.get_by_test_id("audit-entry").filter(has_text="key.updated")
    expect(updated).to_have_count(1)
    expect(updated).to_contain_text("http://localhost:3000")
