"""The widget on a customer's sign-up form in Chromium: the example site (``examples/signup_form.py``) on a
second loopback origin, the service on gunicorn with a worker and the mail lab.

The key's own page gets answers: a typo is offered and applied in one click, a blocked address is
announced to screen readers and stops the form, and the site's server confirms the verdict token. A page
on an origin the key does not allow is refused by CORS, and its form goes on (the site checks the address
itself), and so does the form of a key whose budget is spent (429). A slow mail server is answered within
the page's time budget, and that answer's token confirms nothing (the check had not finished).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from tests.browser.site import Site, free_port, running_site
from tests.dashboard.browser import DESKTOP, accessibility_violations
from tests.fixtures.db import Persona, add_key, open_persona
from tests.processes import running
from tests.workers.harness import PATIENT_SMTP, Gunicorn, Worker, start_worker

pytestmark = pytest.mark.timeout(300)
SHORT_BUDGET = 2  # seconds: the slow lab server (1.5 s a reply) needs far more for a whole session
WIDGET_SLACK = 1.5  # the widget gives up this long after the budget (SLACK_MS in widget.js)


# Every page of this module is one visitor (Chromium on 127.0.0.1): its own window would stop the tests.
SERVICE_SETTINGS = {"BROWSER_VISITOR_PER_MINUTE": "1000"}


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    """A worker that waits out slow.test's 1.5 s replies (the suite's timings give up on its banner)."""
    patient = job_env | PATIENT_SMTP
    with running(start_worker(patient, f"widget{os.getpid()}")) as started:
        yield started


@pytest.fixture(scope="module")
def origins() -> dict[str, str]:
    return {
        "form": f"http://127.0.0.2:{free_port('127.0.0.2')}",
        "hurried": f"http://127.0.0.2:{free_port('127.0.0.2')}",
        "stranger": f"http://127.0.0.3:{free_port('127.0.0.3')}",
        "spent": f"http://127.0.0.2:{free_port('127.0.0.2')}",
    }


@pytest.fixture(scope="module")
def form_key(origins: dict[str, str]) -> Persona:
    owner = open_persona()
    allowed = (origins["form"], origins["hurried"])
    return add_key(
        owner.account_id, "Sign-up form", ("validate:read", "validate:write"), allowed_origins=allowed
    )


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def site(service: Gunicorn, form_key: Persona, origins: dict[str, str]) -> Iterator[Site]:
    with running_site(origins["form"], service.base_url, form_key) as running:
        yield running


def leave_field(page: Page, address: str) -> None:
    page.get_by_label("Email").fill(address)
    page.get_by_label("Email").press("Tab")


def test_a_typo_is_announced_and_one_click_applies_the_suggestion(page: Page, site: Site) -> None:
    page.goto(site.origin)

    leave_field(page, "alice@gmial.com")

    message = page.get_by_role("status")
    expect(message).to_have_text("Did you mean alice@gmail.com?")
    expect(page.get_by_label("Email")).to_have_attribute("aria-describedby", "email-email-check")
    expect(page.get_by_label("Email")).to_have_attribute("aria-invalid", "true")
    assert accessibility_violations(page) == []
    message.get_by_role("button", name="alice@gmail.com").click()
    expect(page.get_by_label("Email")).to_have_value("alice@gmail.com")
    expect(message.get_by_role("button")).to_have_count(0)


def test_a_blocked_address_stops_the_form_until_it_is_fixed_and_the_site_confirms_the_verdict(
    page: Page, site: Site
) -> None:
    page.goto(site.origin)

    leave_field(page, "gone@disabled.test")
    expect(page.get_by_role("status")).to_have_text("This mailbox is disabled.")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Create your account")).to_be_visible()  # still on the form

    leave_field(page, "bob@mailbox.test")
    expect(page.locator('input[name="email_check_token"]')).not_to_have_value("")  # its answer has come
    expect(page.get_by_role("status")).to_have_text("")
    expect(page.get_by_label("Email")).not_to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Welcome")).to_be_visible()
    expect(page.get_by_test_id("outcome")).to_have_text("bob@mailbox.test: valid (confirmed)")


def test_a_page_the_key_does_not_allow_is_refused_by_cors_and_its_form_goes_on(
    page: Page, service: Gunicorn, form_key: Persona, origins: dict[str, str]
) -> None:
    with running_site(origins["stranger"], service.base_url, form_key) as stranger:
        page.goto(stranger.origin)
        failure = page.evaluate(
            """([url, key]) => fetch(url + "/validate/browser", {method: "POST",
                 headers: {"Content-Type": "application/json", "X-API-Key": key},
                 body: JSON.stringify({email: "bob@mailbox.test"})}).then(() => "read", e => e.name)""",
            [service.base_url, form_key.publishable],
        )
        leave_field(page, "gone@disabled.test")
        page.wait_for_timeout(1000)  # the widget's refused request has come back by now
        expect(page.get_by_role("status")).to_have_text("")
        page.get_by_role("button", name="Sign up").click()  # not blocked: the widget fails open

        expect(page.get_by_test_id("outcome")).to_have_text(
            "gone@disabled.test: invalid (checked by the server)"
        )
    assert failure == "TypeError"  # the browser refused to hand the answer to the page
    trail = requests.get(
        f"{service.base_url}/api/audit-log?type=auth.origin_denied", headers=admin_of(form_key), timeout=10
    ).json()["data"]
    assert {entry["details"]["origin"] for entry in trail} == {origins["stranger"]}


def test_a_key_past_its_budget_is_answered_429_and_its_form_goes_on(
    page: Page, service: Gunicorn, origins: dict[str, str]
) -> None:
    owner = open_persona()
    spent = add_key(
        owner.account_id, "Sign-up form", ("validate:write",), allowed_origins=(origins["spent"],)
    )
    turned_off = requests.patch(
        f"{service.base_url}/api/keys/{spent.key_id}",
        json={"publishableDailyBudget": 0},
        headers=owner.headers,
        timeout=10,
    )
    assert turned_off.status_code == 200
    with running_site(origins["spent"], service.base_url, spent) as site:
        page.goto(site.origin)
        seen = page.evaluate(
            """([url, key]) => fetch(url + "/validate/browser", {method: "POST",
                 headers: {"Content-Type": "application/json", "X-API-Key": key},
                 body: JSON.stringify({email: "bob@mailbox.test"})})
               .then(r => r.json().then(b => [r.status, b.error.code]))""",
            [service.base_url, spent.publishable],
        )
        leave_field(page, "gone@disabled.test")
        page.wait_for_timeout(1000)  # the widget's refused request has come back by now
        expect(page.get_by_role("status")).to_have_text("")
        expect(page.get_by_label("Email")).not_to_have_attribute("aria-invalid", "true")
        page.get_by_role("button", name="Sign up").click()  # not blocked: the widget fails open

        expect(page.get_by_test_id("outcome")).to_have_text(
            "gone@disabled.test: invalid (checked by the server)"
        )
    assert seen == [429, "PUBLISHABLE_KEY_BUDGET_EXCEEDED"]  # the page may read why


def test_a_slow_mail_server_is_answered_within_the_pages_budget(
    page: Page, service: Gunicorn, form_key: Persona, origins: dict[str, str]
) -> None:
    with running_site(origins["hurried"], service.base_url, form_key, "--timeout", str(SHORT_BUDGET)) as site:
        page.goto(site.origin)
        token = page.locator('input[name="email_check_token"]')

        started = time.monotonic()
        leave_field(page, "alice@slow.test")
        expect(token).not_to_have_value("", timeout=(SHORT_BUDGET + WIDGET_SLACK) * 1000)
        answered_in = time.monotonic() - started

        expect(page.get_by_role("status")).to_have_text("")  # not finished is not a reason to block
        confirmed = requests.post(
            f"{service.base_url}/validate/confirm",
            headers=form_key.headers,
            json={"token": token.input_value(), "email": "alice@slow.test"},
            timeout=10,
        ).json()
    assert answered_in < SHORT_BUDGET + WIDGET_SLACK
    assert (confirmed["verdict"], confirmed["reason"]) == ("warning", "timeout")
    assert (confirmed["confirmed"], confirmed["authoritative"]) == (False, False)  # not a finished check
    settled = settled_result(confirmed["resultsUrl"], form_key)
    assert settled["checks"]["smtp"]["passed"] is True  # the validation went on after the answer


def settled_result(url: str, key: Persona) -> dict[str, Any]:
    give_up = time.monotonic() + 60
    while True:
        body = requests.get(url, headers=key.headers, timeout=10).json()
        if body["status"] == "completed" or time.monotonic() > give_up:
            result: dict[str, Any] = body["results"][0]
            return result
        time.sleep(0.5)


def admin_of(key: Persona) -> dict[str, str]:
    """The account owner's admin key reads its audit log (the form's key holds validate scopes only)."""
    return open_admin(key.account_id).headers


def open_admin(account_id: int) -> Persona:
    return add_key(account_id, "Audit reader", ("*:*",))
