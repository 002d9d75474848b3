"""The dashboard switched to test data never creates, changes or reads a live object: every dashboard route of
the url map, driven as the owner's browser does (signed in through the form, the header's switch, each form
with its CSRF token), about a reseller's live objects (``live_world``).

``DASHBOARD`` holds one decision per route: reseller pages answer 403 "Live data required"; a live object's
page is 404, and a form about one goes back with the refusal (the service's "not found"); the other pages
show test mode's own data; the sign-in pages, the switch and the owner's devices belong to the person, not
to a mode. A route added without a decision fails ``test_every_dashboard_route_has_a_test_mode_decision``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from flask import Flask
from flask.testing import FlaskClient

from services.users import signup
from tests.sandbox.live_world import LiveWorld, live_app, world

__all__ = ["live_app", "world"]
PASSWORD = "a long enough passphrase"
LIVE_ONLY = "Live data required"
REFUSED_PAGE = 403
SENT_BACK = 302  # a refused form goes back to its page with the reason (``web.dashboard.errors``)


@dataclass(frozen=True)
class Page:
    status: int
    form: dict[str, str] | None = None
    says: str = ""  # on the page, or on the page the refused form was sent back to


@dataclass(frozen=True)
class NotModeData:
    """The person's own pages (sign-in, devices, the switch): no API data of either mode."""

    why: str


def live_only(form: dict[str, str] | None = None) -> Page:
    return Page(REFUSED_PAGE, form, "reseller features (sub-users, commissions, white-label, custom domains)")


NO_KEY = Page(SENT_BACK, {}, "No API key with id")
NO_ENDPOINT = Page(SENT_BACK, {}, "No webhook endpoint with id")
PERSON = NotModeData("the owner's sign-in pages and sessions: the same person in either mode")
DASHBOARD: dict[tuple[str, str], Page | NotModeData] = {
    ("GET", "/dashboard/"): Page(200),
    ("GET", "/dashboard/start"): Page(200),
    ("GET", "/dashboard/usage"): Page(200),  # per-mode usage is another change's; here: no live marker
    ("GET", "/dashboard/audit-log"): Page(200),
    ("GET", "/dashboard/keys"): Page(200),
    ("POST", "/dashboard/keys"): Page(303, {"name": "Sandbox page key", "scopes": "validate:write"}),
    ("POST", "/dashboard/keys/revoke-all"): Page(302, {"confirm": "REVOKE ALL"}),
    ("POST", "/dashboard/keys/<int:key_id>/auto-rotate"): Page(
        SENT_BACK, {"auto_rotate": "on"}, "No API key"
    ),
    ("POST", "/dashboard/keys/<int:key_id>/budget"): Page(
        SENT_BACK, {"publishable_daily_budget": "5", "publishable_monthly_budget": "5"}, "No API key with id"
    ),
    ("POST", "/dashboard/keys/<int:key_id>/delete"): NO_KEY,
    ("POST", "/dashboard/keys/<int:key_id>/origins"): Page(
        SENT_BACK, {"allowed_origins": "https://sneaky.example"}, "No API key with id"
    ),
    ("POST", "/dashboard/keys/<int:key_id>/refresh"): NO_KEY,
    ("POST", "/dashboard/keys/<int:key_id>/reveal"): NO_KEY,
    ("GET", "/dashboard/keys/<int:key_id>/secret"): Page(404),
    ("GET", "/dashboard/validate"): Page(200),
    ("POST", "/dashboard/validate"): Page(200, {"email": "deliverable@example.com", "quick_mode": "on"}),
    ("GET", "/dashboard/validate/<job_id>"): Page(404),
    ("GET", "/dashboard/lists"): Page(200),
    ("POST", "/dashboard/lists"): Page(SENT_BACK, {}, "Choose a CSV file to upload."),
    ("GET", "/dashboard/lists/<job_id>"): Page(404),
    ("POST", "/dashboard/lists/<job_id>/cancel"): Page(SENT_BACK, {}, "No job"),
    ("GET", "/dashboard/lists/<job_id>/download"): Page(404),
    ("GET", "/dashboard/lists/<job_id>/progress"): Page(404),
    ("GET", "/dashboard/monitored-lists"): Page(200),
    ("POST", "/dashboard/monitored-lists"): Page(
        SENT_BACK, {"job_id": "<job_id>", "schedule": "weekly"}, "No job"
    ),
    ("POST", "/dashboard/monitored-lists/<list_id>"): Page(
        SENT_BACK, {"paused": "true"}, "No monitored list"
    ),
    ("POST", "/dashboard/monitored-lists/<list_id>/delete"): Page(SENT_BACK, {}, "No monitored list"),
    ("GET", "/dashboard/monitored-lists/<list_id>/runs/<int:number>/diff"): Page(404),
    ("GET", "/dashboard/webhooks"): Page(200),
    ("POST", "/dashboard/webhooks"): Page(
        303, {"url": "https://127.0.0.1:9/sandbox-page-hook", "events": "key.created"}
    ),
    ("GET", "/dashboard/webhooks/<int:endpoint_id>"): Page(404),
    ("POST", "/dashboard/webhooks/<int:endpoint_id>/delete"): NO_ENDPOINT,
    ("POST", "/dashboard/webhooks/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver"): NO_ENDPOINT,
    ("POST", "/dashboard/webhooks/<int:endpoint_id>/rotate-secret"): NO_ENDPOINT,
    ("GET", "/dashboard/webhooks/<int:endpoint_id>/secret"): Page(404),
    ("POST", "/dashboard/webhooks/<int:endpoint_id>/test"): Page(
        SENT_BACK, {"type": "key.created"}, "No webhook"
    ),
    ("GET", "/dashboard/suppression"): Page(200),
    ("GET", "/dashboard/suppression/entry"): Page(404),  # no address asked: not on test mode's list
    ("POST", "/dashboard/suppression"): Page(302, {"email": "sandbox-bounce@example.com"}),
    ("POST", "/dashboard/suppression/remove"): Page(SENT_BACK, {"email": "<email>"}, "not on this account"),
    ("POST", "/dashboard/suppression/import"): Page(SENT_BACK, {}, "Choose a CSV file to import."),
    ("GET", "/dashboard/suppression/export"): Page(200),
    ("GET", "/dashboard/inbound-sources"): Page(200),
    ("POST", "/dashboard/inbound-sources"): Page(303, {"kind": "postmark", "name": "Sandbox Postmark"}),
    ("GET", "/dashboard/inbound-sources/<source_id>/secret"): Page(404),
    ("POST", "/dashboard/inbound-sources/<source_id>/revoke"): Page(SENT_BACK, {}, "No inbound source"),
    ("GET", "/dashboard/reseller"): live_only(),
    ("GET", "/dashboard/reseller/sub-users"): live_only(),
    ("POST", "/dashboard/reseller/sub-users"): live_only(
        {"email": "sneaky@example.com", "name": "Sneaky", "tier": "enterprise"}
    ),
    ("GET", "/dashboard/reseller/sub-users/<sub_id>"): live_only(),
    ("POST", "/dashboard/reseller/sub-users/<sub_id>"): live_only(
        {"name": "Taken over", "tier": "enterprise"}
    ),
    ("GET", "/dashboard/reseller/sub-users/<sub_id>/created"): live_only(),
    ("POST", "/dashboard/reseller/sub-users/<sub_id>/delete"): live_only({"confirm": "x"}),
    ("POST", "/dashboard/reseller/sub-users/<sub_id>/status"): live_only({"status": "suspended"}),
    ("GET", "/dashboard/reseller/commissions"): live_only(),
    ("GET", "/dashboard/reseller/white-label"): live_only(),
    ("POST", "/dashboard/reseller/white-label"): live_only({"provider": "Sneaky"}),
    ("GET", "/dashboard/reseller/custom-domains"): live_only(),
    ("POST", "/dashboard/reseller/custom-domains"): live_only({"hostname": "api.sneaky.test"}),
    ("POST", "/dashboard/reseller/custom-domains/<domain_id>/delete"): live_only(),
    ("POST", "/dashboard/reseller/custom-domains/<domain_id>/verify"): live_only(),
    ("GET", "/dashboard/devices"): PERSON,
    ("POST", "/dashboard/devices/<int:session_id>/end"): PERSON,
    ("POST", "/dashboard/devices/end-others"): PERSON,
    ("POST", "/dashboard/mode"): NotModeData("the switch itself (tests/dashboard/test_test_mode_switch.py)"),
    ("GET", "/dashboard/sign-in"): PERSON,
    ("POST", "/dashboard/sign-in"): PERSON,
    ("POST", "/dashboard/sign-out"): PERSON,
    ("GET", "/dashboard/sign-up"): PERSON,
    ("POST", "/dashboard/sign-up"): PERSON,
    ("GET", "/dashboard/forgot-password"): PERSON,
    ("POST", "/dashboard/forgot-password"): PERSON,
    ("GET", "/dashboard/reset-password/<token>"): PERSON,
    ("POST", "/dashboard/reset-password/<token>"): PERSON,
    ("GET", "/dashboard/verify-email/<token>"): PERSON,
    ("POST", "/dashboard/verify-email/<token>"): PERSON,
    ("GET", "/dashboard/static/<path:filename>"): NotModeData("stylesheets and scripts"),
}
EXERCISED = sorted(route for route, page in DASHBOARD.items() if isinstance(page, Page))


@pytest.fixture(scope="module")
def owner_login(world: LiveWorld) -> str:
    """The reseller's owner may sign in to the dashboard (its email)."""
    return signup.add_owner(world.live.account_id, PASSWORD).email


@pytest.fixture
def browser(live_app: Flask, owner_login: str) -> tuple[FlaskClient, str]:
    """The owner's browser, signed in through the form and switched to test data; with its CSRF token."""
    client = live_app.test_client()
    token = csrf_token(client, "/dashboard/sign-in")
    signed = client.post(
        "/dashboard/sign-in", data={"email": owner_login, "password": PASSWORD, "csrf_token": token}
    )
    assert signed.status_code == 302, signed.get_data(as_text=True)
    token = csrf_token(client, "/dashboard/keys")
    switched = client.post(
        "/dashboard/mode", data={"mode": "test", "next": "/dashboard/", "csrf_token": token}
    )
    assert switched.status_code == 302
    assert "Test data." in client.get("/dashboard/").get_data(as_text=True)
    return client, token


def csrf_token(client: FlaskClient, path: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True))
    assert found, path
    return found.group(1)


def test_every_dashboard_route_has_a_test_mode_decision(live_app: Flask) -> None:
    served = {
        (method, rule.rule)
        for rule in live_app.url_map.iter_rules()
        if rule.endpoint.startswith("dashboard.")
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    assert served == set(DASHBOARD)


@pytest.mark.parametrize(("method", "rule"), EXERCISED)
def test_the_test_mode_dashboard_reaches_no_live_object(
    world: LiveWorld, browser: tuple[FlaskClient, str], method: str, rule: str
) -> None:
    page = DASHBOARD[(method, rule)]
    assert isinstance(page, Page)
    client, token = browser
    path = world.fill(rule)
    before = world.snapshot()

    if method == "GET":
        response = client.get(path)
    else:
        form = {name: world.fill(value) for name, value in (page.form or {}).items()}
        response = client.post(path, data={**form, "csrf_token": token})

    text = response.get_data(as_text=True)
    assert response.status_code == page.status, text
    assert world.shown_in(text, asked=f"{path} {page.form}") == []
    assert world.snapshot() == before
    if page.status == REFUSED_PAGE:
        assert LIVE_ONLY in text
        assert page.says in text.lower()
    elif page.says:
        shown = client.get(response.headers["Location"]).get_data(as_text=True)
        assert page.says in shown


def test_the_refusal_page_switches_back_to_live_data_and_shows_the_page(
    world: LiveWorld, browser: tuple[FlaskClient, str]
) -> None:
    client, token = browser
    refused = client.get("/dashboard/reseller/white-label")
    form = re.search(
        r'name="next" value="([^"]+)">\s*<input type="hidden" name="mode" value="live">', refused.text
    )

    assert refused.status_code == 403
    assert form is not None
    assert form.group(1) == "/dashboard/reseller/white-label"
    switched = client.post(
        "/dashboard/mode", data={"mode": "live", "next": form.group(1), "csrf_token": token}
    )
    assert switched.headers["Location"] == "/dashboard/reseller/white-label"
    shown = client.get("/dashboard/reseller/white-label")
    assert shown.status_code == 200
    assert world.shown_in(shown.text) == []  # the brand is no marker; the page is the live one
    assert "Test data." not in shown.text


def test_the_test_mode_keys_page_offers_no_reseller_scope(browser: tuple[FlaskClient, str]) -> None:
    client, token = browser
    in_test = client.get("/dashboard/keys").text
    client.post("/dashboard/mode", data={"mode": "live", "next": "/dashboard/keys", "csrf_token": token})
    in_live = client.get("/dashboard/keys").text

    assert 'value="resellers:write"' in in_live
    assert 'value="resellers:write"' not in in_test
