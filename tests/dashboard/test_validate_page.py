"""The Validate page reads plainly: checks by their human names, a skipped check as skipped only, one verdict
in the header, each reason stated once, and a typo domain told as a typo, never as disposable."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_up

pytestmark = TIME_LIMIT
NAMES = [
    "Syntax",
    "Domain",
    "Disposable address",
    "Role address",
    "Mailbox (SMTP)",
    "Catch-all",
    "Free email provider",
    "Company domain",
    "Typo suggestion",
]


def test_a_typo_address_is_shown_with_human_names_one_verdict_and_each_reason_once(page: Page) -> None:
    sign_up(page)  # Business: every check but the mailbox provider

    result = _validate(page, "info@gmial.com")  # gmial.com: no such domain in the lab, disposable-listed

    rows = result.get_by_test_id("check")
    expect(rows.get_by_role("rowheader")).to_have_text(NAMES)
    expect(result.get_by_test_id("verdict")).to_have_text("invalid Score 0 of 100")
    for name in ("Mailbox (SMTP)", "Catch-all"):
        skipped = _row(result, name)
        expect(skipped.locator(".badge")).to_have_text(["skipped"])
        expect(skipped.get_by_test_id("statement")).to_have_text("Not checked: no mail server to ask.")
    expect(_row(result, "Typo suggestion")).to_contain_text("Did you mean info@gmail.com?")
    expect(_row(result, "Disposable address")).to_contain_text("Look-alike of gmail.com")
    advice = result.get_by_role("listitem")
    expect(advice.filter(has_text="Did you mean info@gmail.com?")).to_have_count(1)
    expect(advice.filter(has_text="isposable")).to_have_count(0)


def test_a_check_that_ran_shows_passed_or_failed_and_its_reason_once(page: Page) -> None:
    sign_up(page)

    result = _validate(page, "alice@greylist.test")  # answers 450 until retried: no conclusion yet

    smtp = _row(result, "Mailbox (SMTP)")
    expect(smtp.locator(".badge")).to_have_text(["unknown"])
    expect(smtp.get_by_test_id("statement")).to_contain_text("The mailbox could not be verified: greylisted.")
    expect(_row(result, "Syntax").locator(".badge")).to_have_text(["passed"])
    expect(_row(result, "Role address").locator(".badge")).to_have_text(["passed"])


def _validate(page: Page, address: str) -> Locator:
    page.get_by_role("link", name="Validate", exact=True).click()
    page.get_by_label("Email address").fill(address)
    page.get_by_role("button", name="Validate").click()
    result = page.get_by_test_id("result")
    expect(result.get_by_role("heading", name=address)).to_be_visible(timeout=30_000)
    return result


def _row(result: Locator, name: str) -> Locator:
    return result.get_by_test_id("check").filter(
        has=result.page.get_by_role("rowheader", name=name, exact=True)
    )
