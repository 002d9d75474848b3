"""On a phone (390x844) no page cuts anything off: tables become cards, long names and URLs wrap. The
navigation scrolls sideways with a fade on the side that has more, its current item in view."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Page, expect

from tests.dashboard.browser import PHONE
from tests.dashboard.layout import clipped
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import create_key, sign_up

pytestmark = TIME_LIMIT
LONG_PATH = "/hooks/" + "a-long-path-segment-" * 6 + "end"
PAGES = ["/", "/keys", "/validate", "/lists", "/webhooks", "/audit-log", "/usage", "/start"]


@pytest.fixture
def phone(browser: Browser, service: Service) -> Iterator[Page]:
    """A browser the size of a phone from the start, as a phone's would be."""
    context = browser.new_context(base_url=service.base_url, viewport=PHONE, accept_downloads=True)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def test_no_page_cuts_anything_off_on_a_phone(phone: Page, service: Service, tmp_path: Path) -> None:
    sign_up(phone)
    assert clipped(phone) == []
    create_key(phone, "A key named at some length for the phone")
    assert clipped(phone) == []
    _validate(phone, "alice@mailbox.test")
    assert clipped(phone) == []
    _upload(phone, tmp_path / "a-rather-long-file-name-for-a-list-of-customers-2026.csv")
    assert clipped(phone) == []
    _endpoint_with_a_delivery(phone, service.receiver.url(path=LONG_PATH))
    assert clipped(phone) == []

    for path in PAGES:
        phone.goto(f"/dashboard{path}")
        assert clipped(phone) == [], path


def test_the_navigation_shows_it_scrolls_and_keeps_the_current_page_in_view(phone: Page) -> None:
    sign_up(phone)
    nav = phone.get_by_role("navigation", name="Main")

    phone.goto("/dashboard/")
    expect(nav).to_have_attribute("data-more", "after")  # more to the right, faded out
    assert nav.evaluate("el => getComputedStyle(el).maskImage") != "none"

    for name in ("Webhooks", "Audit log", "Usage"):
        nav.get_by_role("link", name=name).click()
        current = nav.locator("[aria-current=page]")
        expect(current).to_have_text(name)
        assert _within(current.bounding_box(), nav.bounding_box()), name
    expect(nav).to_have_attribute("data-more", "before")  # the last item: more to the left only


def _within(inner: FloatRect | None, outer: FloatRect | None) -> bool:
    assert inner is not None
    assert outer is not None
    return inner["x"] >= outer["x"] - 1 and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1


def _validate(page: Page, address: str) -> None:
    page.goto("/dashboard/validate")
    page.get_by_label("Email address").fill(address)
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("verdict")).to_be_visible(timeout=30_000)
    for evidence in page.get_by_text("Evidence").all():
        evidence.click()


def _upload(page: Page, upload: Path) -> None:
    upload.write_text("email,name\n" + "".join(f"user{n}@bench-00{n}.test,Customer {n}\n" for n in range(5)))
    page.goto("/dashboard/lists")
    page.get_by_label("CSV file").set_input_files(upload)
    page.get_by_role("button", name="Upload and validate").click()
    expect(page.get_by_test_id("percent")).to_have_text("100%", timeout=60_000)


def _endpoint_with_a_delivery(page: Page, url: str) -> None:
    page.goto("/dashboard/webhooks")
    page.get_by_label("HTTPS URL").fill(url)
    page.get_by_role("button", name="Add endpoint").click()
    expect(page.get_by_test_id("signing-secret")).to_be_visible()
    page.get_by_role("link", name="I have stored it: to the endpoint").click()
    page.get_by_role("button", name="Send test").click()
    expect(page.get_by_test_id("delivery")).to_have_count(1)
    page.get_by_text("Payload").click()
