"""Every dashboard page tells the browser what it may run and who may frame it; the pages work under that
policy; an anonymous visitor cannot make the server read a list-sized body (Chromium, real service)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from tests.dashboard.browser import DESKTOP
from tests.dashboard.service import Service
from tests.dashboard.steps import sign_up

PAGES: tuple[str, ...] = ("/dashboard/", "/dashboard/keys", "/dashboard/validate", "/dashboard/lists")
PAGES += ("/dashboard/webhooks", "/dashboard/audit-log", "/dashboard/usage", "/dashboard/devices")


@pytest.fixture
def strict_page(browser: Browser, service: Service) -> Iterator[Page]:
    """A browser that obeys the pages' Content-Security-Policy (the shared ``page`` bypasses it for axe)."""
    context = browser.new_context(base_url=service.base_url, viewport=DESKTOP)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def test_every_page_carries_the_policy_and_runs_nothing_inline(strict_page: Page) -> None:
    complaints: list[str] = []
    strict_page.on("console", lambda message: complaints.append(message.text))
    sign_up(strict_page)

    for path in PAGES:
        response = strict_page.goto(path)
        assert response is not None
        headers = response.headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert (headers["x-content-type-options"], headers["referrer-policy"]) == ("nosniff", "same-origin")
    refused_by_policy = [text for text in complaints if "Content Security Policy" in text]
    injected = strict_page.evaluate(
        """() => { const s = document.createElement('script'); s.textContent = 'window.pwned = 1';
        document.body.appendChild(s); return window.pwned === 1; }"""
    )

    assert refused_by_policy == []  # the pages' own scripts and styles all obey it
    assert injected is False  # an injected inline script does not run


def test_no_other_site_can_frame_a_page(strict_page: Page, service: Service) -> None:
    strict_page.set_content(f'<iframe title="framed" src="{service.base_url}/dashboard/sign-in"></iframe>')
    frame = strict_page.frame_locator("iframe")

    expect(frame.get_by_role("heading", name="Sign in")).to_have_count(0)


def test_an_anonymous_visitor_cannot_send_a_list_sized_body(service: Service) -> None:
    big = b"email\n" + b"someone@example.com\n" * 300_000  # about 6 MB, far under the owners' list limit
    refused = requests.post(
        f"{service.base_url}/dashboard/lists",
        data=big,
        headers={"Content-Type": "multipart/form-data; boundary=x"},
        timeout=30,
    )
    assert refused.status_code == 413
