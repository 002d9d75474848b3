"""An Enterprise Plus owner runs a reseller business from the dashboard: a sub-user created on the page gets
a key (shown once) that works on the API until the sub-user is suspended or deleted; its usage, the month's
commissions and white-label are on their pages; a custom domain shows its TXT record and is verified once the
record is published in the lab's DNS. Other plans see no Reseller entry and get 403; another reseller gets
404 for the first one's sub-user."""

from __future__ import annotations

import secrets
from typing import Any

import requests
from playwright.sync_api import Browser, Page, expect

from maillab import MailLab
from maillab.model import DomainSpec
from tests.dashboard.browser import DESKTOP, check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import create_key, sign_up

pytestmark = TIME_LIMIT
BRAND = {
    "Provider": "Acme Verify",
    "Support": "help@acme-verify.example",
    "Documentation": "https://docs.acme-verify.example/api",
}


def test_a_sub_user_key_works_until_suspended_and_its_usage_commission_and_brand_show(
    page: Page, service: Service, browser: Browser
) -> None:
    sign_up(page, tier="enterprise_plus")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Reseller").click()
    email = f"customer-{secrets.token_hex(3)}@example.com"
    page.get_by_label("Email").fill(email)
    page.get_by_label("Name").fill("Acme Corp")
    page.get_by_label("Plan").select_option("pro")
    page.get_by_role("button", name="Create sub-user").click()

    expect(page.get_by_role("heading", name="Sub-user created: Acme Corp")).to_be_visible()
    expect(page.get_by_text("This is the only time it is shown.")).to_be_visible()
    secret = page.get_by_test_id("secret-key").input_value()
    check_and_shoot(page, "reseller-sub-user-created")
    usage = _api(service, "get", "/api/usage", secret)
    assert usage.status_code == 200, usage.text
    assert usage.json()["plan"]["tier"] == "pro"
    assert _api(service, "post", "/validate", secret, {"email": "alice@mailbox.test"}).status_code == 200

    page.get_by_role("link", name="I have stored it: to the sub-user").click()
    expect(page.get_by_test_id("quota-used")).to_have_text("1")
    assert secret not in page.content()
    page.go_back()  # to the creation page: it creates nothing and shows no secret again
    expect(page.get_by_role("status")).to_contain_text(f"The first key of {email} was shown once")
    assert secret not in page.content()
    sub_url = page.url
    check_and_shoot(page, "reseller-sub-user")
    _another_reseller_gets_404(browser, service, sub_url)

    page.get_by_role("textbox", name="Name").fill("Acme Corporation")
    page.get_by_role("combobox", name="Plan").select_option("business")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("status")).to_have_text(f"Saved: name and tier of {email} changed.")
    expect(page.get_by_role("heading", name="Acme Corporation")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Suspend").click()
    expect(page.get_by_test_id("sub-status")).to_have_text("active")  # asked, answered no: nothing changed
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Suspend").click()
    expect(page.get_by_test_id("sub-status")).to_have_text("suspended")
    assert _api(service, "get", "/api/usage", secret).status_code == 401
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Reactivate").click()
    expect(page.get_by_test_id("sub-status")).to_have_text("active")
    assert _api(service, "get", "/api/usage", secret).status_code == 200

    page.get_by_role("navigation", name="Reseller").get_by_role("link", name="Sub-users").click()
    expect(page.get_by_test_id("sub-user")).to_contain_text("Acme Corporation")
    check_and_shoot(page, "reseller-sub-users")

    page.get_by_role("link", name="Commissions").click()
    expect(page.get_by_test_id("report-state")).to_have_text("open")
    expect(page.get_by_test_id("commission-rate")).to_have_text("20%")
    this_month = page.get_by_role("heading", name="Commissions for").inner_text()
    line = page.get_by_test_id("commission-line")
    expect(line).to_contain_text(email)
    expect(line.locator("td").nth(1)).to_have_text("1")
    check_and_shoot(page, "reseller-commissions")
    page.get_by_role("link", name="Previous month").click()
    expect(page.get_by_role("heading", name="Commissions for")).not_to_have_text(this_month)
    expect(page.get_by_text("No sub-user existed in")).to_be_visible()
    future = page.goto("/dashboard/reseller/commissions?period=2999-01")
    assert future is not None
    assert future.status == 400
    expect(page.get_by_role("alert")).to_have_text(
        "2999-01 has not begun; ask for the current month or an earlier one."
    )

    page.get_by_role("link", name="White-label").click()
    page.get_by_label("White-label is on").check()
    page.get_by_role("button", name="Save white-label").click()
    expect(page.get_by_role("alert")).to_have_text("provider is required to switch white-label on.")
    page.get_by_label("White-label is on").check()
    for label, value in BRAND.items():
        page.get_by_label(label).fill(value)
    page.get_by_role("button", name="Save white-label").click()
    expect(page.get_by_role("status")).to_contain_text("White-label is on")
    expect(page.get_by_test_id("white-label-state")).to_have_text("on")
    check_and_shoot(page, "reseller-white-label")
    branded = _api(service, "post", "/validate", secret, {"email": "alice@mailbox.test"})
    assert branded.json()["metadata"]["provider"] == "Acme Verify"

    page.goto(sub_url)
    page.get_by_label(f"Type {email} to confirm").fill("someone else")
    page.get_by_role("button", name="Delete sub-user").click()
    expect(page.get_by_role("alert")).to_have_text(f"Nothing was deleted: type {email} exactly to confirm.")
    page.get_by_label(f"Type {email} to confirm").fill(email)
    page.get_by_role("button", name="Delete sub-user").click()
    expect(page.get_by_role("status")).to_contain_text(f"{email} was deleted")
    expect(page.get_by_text("No sub-users yet.")).to_be_visible()
    assert _api(service, "get", "/api/usage", secret).status_code == 401


def test_a_custom_domain_shows_its_txt_record_and_is_verified_once_published(
    page: Page, service: Service, lab: MailLab
) -> None:
    hostname = f"api.brand-{secrets.token_hex(3)}.test"
    sign_up(page, tier="enterprise_plus")
    page.goto("/dashboard/reseller/custom-domains")
    page.get_by_label("Host name").fill(hostname.upper())
    page.get_by_role("button", name="Add domain").click()
    expect(page.get_by_role("status")).to_contain_text(f"{hostname} was added")
    card = page.get_by_test_id("custom-domain")
    name = card.get_by_label("Name").input_value()
    value = card.get_by_label("Value").input_value()
    assert name == f"_domain-challenge.{hostname}"

    card.get_by_role("button", name=f"Verify {hostname}").click()
    failed = page.get_by_test_id("verify-failed")
    expect(failed).to_contain_text(f"TXT {name} “{value}”")
    expect(failed).to_contain_text("no TXT record")
    check_and_shoot(page, "reseller-custom-domains")

    lab.publish(DomainSpec(name, txt=(value,)))
    try:
        page.get_by_role("button", name=f"Verify {hostname}").click()
        expect(page.get_by_role("status")).to_have_text(
            f"{hostname} is verified: requests to it are served under your brand."
        )
    finally:
        lab.withdraw(name)
    expect(card.locator(".badge")).to_have_text("verified")
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name=f"Delete {hostname}").click()
    expect(page.get_by_role("status")).to_have_text(f"{hostname} was deleted: it stops serving at once.")
    expect(page.get_by_text("No custom domains yet.")).to_be_visible()


def test_other_plans_see_no_reseller_entry_and_get_403_on_its_pages(page: Page) -> None:
    sign_up(page, tier="enterprise")
    expect(page.get_by_role("link", name="Reseller")).to_have_count(0)
    token = page.locator("input[name=csrf_token]").first.get_attribute("value") or ""

    for path in ("/dashboard/reseller", "/dashboard/reseller/commissions", "/dashboard/reseller/white-label"):
        response = page.goto(path)
        assert response is not None
        assert response.status == 403, path
    expect(page.get_by_role("heading", name="Enterprise Plus plan required")).to_be_visible()
    expect(page.get_by_text("need the Enterprise Plus plan; this account is on Enterprise.")).to_be_visible()
    check_and_shoot(page, "reseller-plan-required")

    form: dict[str, str | float | bool] = {"email": "x@example.com", "name": "X", "tier": "pro"}
    refused = page.request.post("/dashboard/reseller/sub-users", form={**form, "csrf_token": token})
    unsigned = page.request.post("/dashboard/reseller/sub-users", form=form)
    assert refused.status == 403
    assert "Enterprise Plus" in refused.text()
    assert unsigned.status == 400
    assert "security token is missing" in unsigned.text()


def test_sub_users_are_listed_twenty_to_a_page_oldest_first(page: Page, service: Service) -> None:
    sign_up(page, tier="enterprise_plus")
    secret = create_key(page, "Reseller backend", scopes=("resellers:write",))
    for number in range(21):
        body = {"email": f"c{number:02d}@example.com", "name": f"Customer {number:02d}", "tier": "growth"}
        created = requests.post(
            f"{service.base_url}/api/sub-users", headers={"X-API-Key": secret}, json=body, timeout=20
        )
        assert created.status_code == 201, created.text

    page.goto("/dashboard/reseller/sub-users")
    rows = page.get_by_test_id("sub-user")
    expect(rows).to_have_count(20)
    expect(rows.first).to_contain_text("Customer 00")
    page.get_by_role("link", name="Next page").click()
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("Customer 20")
    page.get_by_role("link", name="First page").click()
    expect(rows).to_have_count(20)


def _another_reseller_gets_404(browser: Browser, service: Service, sub_url: str) -> None:
    context = browser.new_context(base_url=service.base_url, viewport=DESKTOP)
    try:
        outsider = context.new_page()
        sign_up(outsider, tier="enterprise_plus")
        token = outsider.locator("input[name=csrf_token]").first.get_attribute("value") or ""
        seen = outsider.goto(sub_url)
        assert seen is not None
        assert seen.status == 404
        suspend: dict[str, str | float | bool] = {"status": "suspended", "csrf_token": token}
        refused = outsider.request.post(f"{sub_url}/status", form=suspend, max_redirects=0)
        assert refused.status == 302  # a refused form goes back, with the reason shown there
        outsider.goto(refused.headers["location"])
        expect(outsider.get_by_role("alert")).to_contain_text("No sub-user with id")
    finally:
        context.close()


def _api(
    service: Service, method: str, path: str, secret: str, body: dict[str, Any] | None = None
) -> requests.Response:
    quick = {**body, "options": {"quickMode": True}} if body is not None else None
    return requests.request(
        method, f"{service.base_url}{path}", headers={"X-API-Key": secret}, json=quick, timeout=20
    )
