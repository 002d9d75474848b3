"""Sign-up lands on a first-run page: make a key, try an address on the Validate page, read the API's
description; the key step says when it is done."""

from __future__ import annotations

import requests
from playwright.sync_api import Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import create_key, sign_up

pytestmark = TIME_LIMIT


def test_sign_up_lands_on_the_first_run_page_whose_steps_lead_to_a_first_validation(
    page: Page, service: Service
) -> None:
    sign_up(page)

    assert page.url.endswith("/dashboard/start")
    steps = page.get_by_test_id("step")
    expect(steps.get_by_role("heading")).to_have_text(
        ["1. Create an API key", "2. Try an address", "3. Call the API"]
    )
    expect(steps.first.locator(".badge")).to_have_count(0)
    expect(page.get_by_test_id("curl-example")).to_contain_text(f"curl -X POST {service.base_url}/validate")
    docs = page.get_by_role("link", name="/openapi.json")
    described = requests.get(docs.get_attribute("href") or "", timeout=10)
    assert described.json()["openapi"].startswith("3.1")
    check_and_shoot(page, "get-started")

    page.get_by_role("link", name="Create a key").click()
    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    create_key(page, "First server", scopes=("analytics:read",))
    page.goto("/dashboard/start")
    expect(steps.first.locator(".badge")).to_have_text("done")
    expect(steps.first).to_contain_text("You have 1 key.")
    page.get_by_role("link", name="Validate an address").click()
    expect(page.get_by_role("heading", name="Validate an address")).to_be_visible()
