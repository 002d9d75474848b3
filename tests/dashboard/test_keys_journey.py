"""An owner signs up, creates a key, sees its secret exactly once, uses it on the API and finds the creation
in the audit log; every page on the way passes axe-core at desktop and phone width."""

from __future__ import annotations

from datetime import timedelta

import requests
from playwright.sync_api import Page, expect
from sqlalchemy import select

from core import clock
from models.keys import ApiKey, Milestone
from models.session import transaction
from services.keys import rotation
from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import create_key, sign_up

pytestmark = TIME_LIMIT


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


def test_reloading_the_key_created_page_makes_no_second_key_and_shows_no_secret(page: Page) -> None:
    sign_up(page)
    secret = create_key(page, "Reloaded key", scopes=("analytics:read",))

    page.reload()

    expect(page.get_by_role("heading", name="API keys")).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text(
        "The secret of “Reloaded key” was shown once and is not shown again."
    )
    expect(page.get_by_role("heading", name="Reloaded key")).to_have_count(1)
    expect(page.locator("article[id^=key-]")).to_have_count(1)
    expect(page.get_by_test_id("secret-key")).to_have_count(0)
    assert secret not in page.content()


def test_a_refreshed_secret_is_shown_once_and_a_reload_refreshes_nothing(
    page: Page, service: Service
) -> None:
    sign_up(page)
    create_key(page, "Refreshed key", scopes=("analytics:read",))
    page.goto("/dashboard/keys")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Refresh secret").click()
    expect(page.get_by_role("heading", name="Secret refreshed: Refreshed key")).to_be_visible()
    refreshed = page.get_by_test_id("secret-key").input_value()

    page.reload()

    expect(page.get_by_role("status")).to_contain_text("was shown once and is not shown again")
    assert refreshed not in page.content()
    assert _usage_status(service, refreshed) == 200  # the reload did not refresh it again


def test_the_rotation_countdown_auto_rotate_switch_and_reveal_of_a_rotated_secret(
    page: Page, service: Service
) -> None:
    sign_up(page)
    old_secret = create_key(page, "Rotating key", scopes=("analytics:read",))
    key_id = _key_id(page.get_by_test_id("publishable-key").input_value())
    page.goto("/dashboard/keys")
    card = page.locator(f"#key-{key_id}")
    expect(card.get_by_test_id(f"countdown-{key_id}")).to_have_text("90 days until its 90-day rotation")

    page.once("dialog", lambda dialog: dialog.accept())  # it asks first
    card.get_by_role("button", name="Auto-rotate: off").click()
    expect(page.get_by_role("status")).to_have_text("Automatic rotation is on for “Rotating key”.")
    _ninety_one_days_pass(key_id)  # what the beat sweeper does on day 90 of an auto-rotating key
    page.reload()
    page.once("dialog", lambda dialog: dialog.accept())  # a secret is shown only after a yes
    page.locator(f"#key-{key_id}").get_by_role("button", name="Reveal rotated secret").click()

    expect(page.get_by_role("heading", name="Auto-rotated secret: Rotating key")).to_be_visible()
    new_secret = page.get_by_test_id("secret-key").input_value()
    assert new_secret != old_secret
    assert _usage_status(service, new_secret) == 200
    assert _usage_status(service, old_secret) == 401
    page.goto("/dashboard/keys")
    expect(page.locator(f"#key-{key_id}").get_by_role("button", name="Reveal rotated secret")).to_have_count(
        0
    )


def _key_id(publishable_key: str) -> int:
    with transaction() as session:
        key_id: int = session.scalars(
            select(ApiKey.id).where(ApiKey.publishable_key == publishable_key)
        ).one()
        return key_id


def _ninety_one_days_pass(key_id: int) -> None:
    """Age the key's secret by 91 days, then let the rotation sweep's own step rotate and seal it."""
    with transaction() as session:
        key = session.get_one(ApiKey, key_id)
        key.secret_issued_at -= timedelta(days=91)
    with transaction() as session:
        assert rotation.advance(session, key_id, clock.now()) == [Milestone.ROTATED]


def _usage_status(service: Service, secret: str) -> int:
    return requests.get(
        f"{service.base_url}/api/usage", headers={"X-API-Key": secret}, timeout=10
    ).status_code
