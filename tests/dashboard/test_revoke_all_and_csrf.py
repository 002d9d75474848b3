"""The emergency revoke-all needs its typed confirmation; forms posted without their CSRF token are refused;
the API never accepts the dashboard's cookie, and the dashboard never accepts an API key."""

from __future__ import annotations

import re

import requests
from playwright.sync_api import Page, expect

from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import PASSWORD, create_key, sign_up
from tests.fixtures.db import open_owner

pytestmark = TIME_LIMIT


def test_revoke_all_needs_the_typed_confirmation_then_stops_every_key(page: Page, service: Service) -> None:
    sign_up(page)
    first = create_key(page, "Web server", scopes=("analytics:read",))
    second = create_key(page, "Batch jobs", scopes=("analytics:read",))
    page.goto("/dashboard/keys")

    page.get_by_label("Type REVOKE ALL to confirm").fill("revoke")
    page.get_by_role("button", name="Revoke all keys").click()
    expect(page.get_by_role("alert")).to_contain_text("Nothing was revoked: type REVOKE ALL exactly")
    assert _usage(service, first).status_code == 200

    page.get_by_label("Type REVOKE ALL to confirm").fill("REVOKE ALL")
    page.get_by_role("button", name="Revoke all keys").click()

    expect(page.get_by_role("status")).to_contain_text("Deactivated 2 keys.")
    expect(page.locator(".badge-inactive")).to_have_count(2)
    assert _usage(service, first).status_code == 401
    assert _usage(service, second).status_code == 401
    page.goto("/dashboard/audit-log?type=keys.revoked_all")
    expect(page.get_by_test_id("audit-entry")).to_contain_text("revokedCount: 2")


def test_forms_posted_without_their_csrf_token_are_refused(service: Service) -> None:
    with requests.Session() as browser:
        signed_up = _sign_up(browser, service)
        assert signed_up.status_code == 302

        without_token = browser.post(
            f"{service.base_url}/dashboard/keys",
            data={"name": "Sneaky key"},
            timeout=10,
            allow_redirects=False,
        )
        forged_token = browser.post(
            f"{service.base_url}/dashboard/keys/revoke-all",
            data={"confirm": "REVOKE ALL", "csrf_token": "forged"},
            timeout=10,
            allow_redirects=False,
        )
        keys_page = browser.get(f"{service.base_url}/dashboard/keys", timeout=10)

    for refused in (without_token, forged_token):
        assert refused.status_code == 400
        assert "its security token is missing or out of date" in refused.text
    assert "Sneaky key" not in keys_page.text


def test_the_api_ignores_the_dashboard_cookie_and_pages_ignore_api_keys(service: Service) -> None:
    with requests.Session() as browser:
        _sign_up(browser, service)
        cookie = browser.cookies.get("dashboard_session")
        api = requests.get(
            f"{service.base_url}/api/usage", cookies={"dashboard_session": cookie or ""}, timeout=10
        )
        secret = _create_key(browser, service)
    page = requests.get(
        f"{service.base_url}/dashboard/keys", headers={"X-API-Key": secret}, timeout=10, allow_redirects=False
    )

    assert api.status_code == 401
    assert api.json()["error"]["code"] == "MISSING_API_KEY"
    assert page.status_code == 302
    assert "/dashboard/sign-in" in page.headers["Location"]


def _usage(service: Service, secret: str) -> requests.Response:
    return requests.get(f"{service.base_url}/api/usage", headers={"X-API-Key": secret}, timeout=10)


def _token(session: requests.Session, url: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', session.get(url, timeout=10).text)
    assert match
    return match.group(1)


def _sign_up(session: requests.Session, service: Service) -> requests.Response:
    """An owner the operator opened, signed in through the form."""
    url = f"{service.base_url}/dashboard/sign-in"
    form = {"email": open_owner(PASSWORD), "password": PASSWORD, "csrf_token": _token(session, url)}
    return session.post(url, data=form, timeout=10, allow_redirects=False)


def _create_key(session: requests.Session, service: Service) -> str:
    url = f"{service.base_url}/dashboard/keys"
    form = {"name": "Reporting", "scopes": "analytics:read", "csrf_token": _token(session, url)}
    created = session.post(url, data=form, timeout=10)
    match = re.search(r'value="(sk_live_[^"]+)"', created.text)
    assert created.status_code == 200  # the page the form's 303 leads to
    assert created.history[0].status_code == 303
    assert match
    return match.group(1)
