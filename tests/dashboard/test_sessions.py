"""Sessions live on the server: signing out ends the session wherever its cookie was copied, and the owner
sees every signed-in device and can end any of them (Chromium against the real service)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pytest
from playwright._impl._api_structures import SetCookieParam
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.dashboard.browser import DESKTOP, check_and_shoot
from tests.dashboard.service import Service
from tests.dashboard.steps import sign_in, sign_out, sign_up


@pytest.fixture
def second_browser(browser: Browser, service: Service) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=service.base_url, viewport=DESKTOP)
    context.set_default_timeout(15_000)
    yield context
    context.close()


def test_a_cookie_copied_before_sign_out_opens_nothing_after(
    page: Page, second_browser: BrowserContext
) -> None:
    sign_up(page)
    copied = page.context.cookies()

    sign_out(page)
    second_browser.add_cookies(cast("list[SetCookieParam]", copied))  # someone who copied it replays it
    replay = second_browser.new_page()
    replay.goto("/dashboard/")

    expect(replay.get_by_role("heading", name="Sign in")).to_be_visible()


def test_the_owner_signs_out_another_device_from_the_devices_page(
    page: Page, second_browser: BrowserContext
) -> None:
    email = sign_up(page)
    other = second_browser.new_page()
    sign_in(other, email)
    expect(other.get_by_role("heading", name="Overview")).to_be_visible()

    page.get_by_role("link", name=email).click()
    expect(page.get_by_test_id("device")).to_have_count(2)
    check_and_shoot(page, "devices")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Sign this device out").click()  # the other one ("Sign out here" is ours)

    expect(page.get_by_test_id("device")).to_have_count(1)
    other.goto("/dashboard/keys")
    expect(other.get_by_role("heading", name="Sign in")).to_be_visible()
    page.goto("/dashboard/keys")
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
