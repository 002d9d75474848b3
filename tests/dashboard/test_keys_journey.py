"""An owner signs up, creates a key, sees its secret exactly once, uses it on the API and finds the creation
in the audit log; every page on the way passes axe-core at desktop and phone width."""

from __future__ import annotations

import requests
from playwright.sync_api import Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import Service
from tests.dashboard.steps import create_key, sign_up


def test_a_key_created_on_the_page_is_shown_once_works_on_the_api_and_is_audited(
    page: Page, service: Service
) -> None:
    page.goto("/dashboard/sign-up")
    check_and_shoot(page, "sign-up")
    email = sign_up(page)

    secret = create_key(page, "Production server", scopes=("analytics:read",))
    assert secret.startswith("sk_live_")
    expect(page.get_by_text("This is the only time it is shown.")).to_be_visible()
    check_and_shoot(page, "key-created")

    page.get_by_role("link", name="I have stored it: back to keys").click()
    expect(page.get_by_role("heading", name="Production server")).to_be_visible()
    assert secret not in page.content()
    assert f"sk_live_…{secret[-4:]}" in page.content()
    check_and_shoot(page, "keys")

    usage = requests.get(f"{service.base_url}/api/usage", headers={"X-API-Key": secret}, timeout=10)
    assert usage.status_code == 200, usage.text
    assert usage.json()["plan"]["tier"] == "business"

    page.get_by_role("link", name="Audit log").click()
    entry = page.get_by_test_id("audit-entry").filter(has_text="key.created")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text(f"{email} (dashboard)")
    expect(entry).to_contain_text("Production server")
    check_and_shoot(page, "audit-log")
