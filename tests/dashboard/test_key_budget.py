"""An owner sets what a publishable key's web pages may spend on the Keys page: the default shown, a new
budget saved and shown, a number out of range refused with the reason, the change in the audit log."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.dashboard.browser import accessibility_violations
from tests.dashboard.layout import clipped
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_up

pytestmark = TIME_LIMIT


def test_an_owner_sets_a_keys_budget_and_finds_the_change_audited(page: Page) -> None:
    sign_up(page)
    page.goto("/dashboard/keys")
    page.get_by_label("Name").fill("Sign-up form")
    page.get_by_role("button", name="Create key").click()
    page.get_by_role("link", name="I have stored it: back to keys").click()
    card = page.locator("article").filter(has=page.get_by_role("heading", name="Sign-up form"))
    shown = card.locator("[data-testid^=budget-]")
    expect(shown).to_have_text("100 validations a day, 1000 a billing period")

    card.get_by_label("Per day (UTC)").fill("500")
    card.get_by_label("Per billing period").fill("8000")
    card.get_by_role("button", name="Save budget").click()
    expect(page.get_by_role("status")).to_have_text(
        "The web pages of “Sign-up form” may now have 500 validations a day and 8000 a billing period "
        "answered."
    )
    expect(shown).to_have_text("500 validations a day, 8000 a billing period")
    assert accessibility_violations(page) == []
    assert clipped(page) == []

    card.get_by_label("Per day (UTC)").fill("20000000")  # past the field's max: the server's own check
    card.get_by_label("Per day (UTC)").evaluate("input => input.removeAttribute('max')")
    card.get_by_role("button", name="Save budget").click()
    expect(page.get_by_role("alert")).to_contain_text("10000000")
    expect(shown).to_have_text("500 validations a day, 8000 a billing period")  # nothing changed

    page.get_by_role("link", name="Audit log").click()
    updated = page.get_by_test_id("audit-entry").filter(has_text="key.updated")
    expect(updated).to_have_count(1)
    expect(updated).to_contain_text("8000")
