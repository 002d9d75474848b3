"""The header's live/test switch: test data under a banner on every page, the sandbox's answers on the
Validate page, test keys on the Keys page, and back to live data with none of it showing."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.dashboard import layout
from tests.dashboard.browser import DESKTOP, PHONE, accessibility_violations
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import create_key, sign_up

pytestmark = TIME_LIMIT


def switch(page: Page) -> None:
    page.get_by_test_id("mode-switch").get_by_role("button").click()


def test_switching_to_test_data_shows_the_banner_the_sandbox_and_test_keys_then_live_again(
    page: Page,
) -> None:
    sign_up(page)
    expect(page.get_by_test_id("test-banner")).to_have_count(0)
    expect(page.get_by_test_id("mode-switch")).to_contain_text("Live data")

    switch(page)

    expect(page.get_by_test_id("test-banner")).to_contain_text("Test data.")
    expect(page.get_by_test_id("mode-switch")).to_contain_text("Switch to live data")
    page.get_by_role("link", name="Validate", exact=True).click()
    expect(page.get_by_test_id("test-banner")).to_be_visible()  # on every page while in test mode
    page.get_by_label("Email address").fill("undeliverable@example.com")
    page.get_by_role("button", name="Validate").click()
    result = page.get_by_test_id("result")
    expect(result.get_by_test_id("verdict")).to_contain_text("invalid", timeout=30_000)
    expect(result).to_contain_text("The mail server says the mailbox does not exist.")
    secret = create_key(page, "Sandbox key")
    assert secret.startswith("sk_test_")
    expect(page.get_by_test_id("test-banner")).to_be_visible()

    page.goto("/dashboard/keys")
    switch(page)

    expect(page.get_by_test_id("test-banner")).to_have_count(0)
    expect(page.get_by_test_id("mode-switch")).to_contain_text("Live data")
    expect(page.get_by_text("Sandbox key")).to_have_count(0)  # a test key is test mode's own


def test_the_test_mode_header_and_banner_are_accessible_and_fit_a_phone(page: Page) -> None:
    sign_up(page)
    switch(page)

    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        assert accessibility_violations(page) == []
        assert layout.clipped(page) == []
    page.set_viewport_size(DESKTOP)


def test_a_reseller_in_test_data_is_told_its_pages_are_live_only_and_switches_back(page: Page) -> None:
    sign_up(page, tier="enterprise_plus")
    page.goto("/dashboard/reseller/sub-users")
    switch(page)

    expect(page.get_by_role("heading", name="Live data required")).to_be_visible()
    expect(page.get_by_test_id("live-only")).to_contain_text(
        "Reseller features (sub-users, commissions, white-label, custom domains) work in live mode only"
    )
    expect(page.get_by_test_id("test-banner")).to_contain_text("Reseller pages work with live data only.")
    expect(page.get_by_role("button", name="Create sub-user")).to_have_count(0)
    assert accessibility_violations(page) == []
    assert layout.clipped(page) == []

    page.get_by_role("main").get_by_role("button", name="Switch to live data").click()

    expect(page.get_by_role("button", name="Create sub-user")).to_be_visible()
    expect(page.get_by_test_id("test-banner")).to_have_count(0)
