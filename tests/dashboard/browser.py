"""Chromium from Debian's packages, driven by Playwright; screenshots for the README; axe-core checks.

``playwright install`` cannot download browsers here, so Playwright launches the system ``chromium``
(bin/setup installs it). axe-core is vendored beside this file (``vendor/axe.min.js``, MPL-2.0, its licence
header kept): pages load nothing from elsewhere, and neither do their tests.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from tests.dashboard import layout
from tests.dashboard.service import Service
from tests.processes import ROOT

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SCREENSHOTS = ROOT / "docs" / "screenshots"
DESKTOP = ViewportSize(width=1280, height=800)
PHONE = ViewportSize(width=390, height=844)
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
CHROMIUM_ARGS = [
    "--no-sandbox",  # tests run as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "chromium is not installed: run bin/setup (apt-get install chromium)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, service: Service) -> Iterator[Page]:
    """A fresh browser profile (no cookies) at desktop size, on the served dashboard."""
    # bypass_csp: axe-core is injected as an inline script, which the pages' policy refuses (as it should);
    # tests/dashboard/test_security_headers.py visits the pages under the policy.
    context = browser.new_context(
        base_url=service.base_url, viewport=DESKTOP, accept_downloads=True, bypass_csp=True
    )
    context.set_default_timeout(15_000)
    opened = context.new_page()
    yield opened
    context.close()


def accessibility_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's WCAG 2 A/AA violations on the current page (none is the bar)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG_AA
    )
    return [
        {"id": v["id"], "help": v["help"], "targets": [n["target"] for n in v["nodes"]][:5]}
        for v in result["violations"]
    ]


def check_and_shoot(page: Page, name: str) -> None:
    """At desktop and phone width: no accessibility violation and nothing cut off, then a screenshot for
    docs/screenshots/; and no "day(s)" left for the reader to sort out."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        violations, cut_off = accessibility_violations(page), layout.clipped(page)
        assert violations == [], f"{name} at {label} width: {violations}"
        assert cut_off == [], f"{name} at {label} width: {cut_off}"
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"))
    plurals = layout.unfinished_plurals(page)
    assert plurals == [], f"{name}: {plurals}"
    page.set_viewport_size(DESKTOP)
