"""Signing in: a wrong password is refused and audited, the session cookie is HttpOnly and SameSite, a
forgotten password is reset by an emailed single-use link, and the CLI's --password-stdin gives a sign-in."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import requests
from playwright.sync_api import Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import PASSWORD, new_email, sign_in, sign_out, sign_up
from tests.fixtures.db import open_owner
from tests.processes import ROOT

pytestmark = TIME_LIMIT


def test_a_wrong_password_is_refused_and_written_to_the_audit_log(page: Page) -> None:
    email = sign_up(page)
    sign_out(page)

    sign_in(page, email, "not my password at all")

    expect(page.get_by_role("alert")).to_have_text("The email or password is not right.")
    check_and_shoot(page, "sign-in")
    sign_in(page, email)
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    page.goto("/dashboard/audit-log?type=user.sign_in_failed")
    failed = page.get_by_test_id("audit-entry")
    expect(failed).to_have_count(1)
    expect(failed).to_contain_text("reason: wrong password")
    page.goto("/dashboard/audit-log?type=user.signed_in")
    expect(page.get_by_test_id("audit-entry")).to_have_count(1)


def test_the_session_cookie_is_http_only_same_site_and_scoped_to_the_dashboard(page: Page) -> None:
    sign_up(page)

    (cookie,) = page.context.cookies()
    assert cookie["name"] == "dashboard_session"
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Lax"
    assert cookie["path"] == "/dashboard"
    assert page.evaluate("() => document.cookie") == ""  # scripts cannot read it


def test_five_wrong_passwords_lock_the_email_for_a_while(service: Service) -> None:
    email = open_owner(PASSWORD)
    with requests.Session() as guesser:
        statuses = [_sign_in(guesser, service, email, f"guess number {n}").status_code for n in range(5)]
        refused = _sign_in(guesser, service, email, PASSWORD)

    assert statuses == [401] * 5
    assert refused.status_code == 429
    assert "Too many failed sign-ins. Try again in 15 minutes," in refused.text
    assert int(refused.headers["Retry-After"]) > 0


def test_a_forgotten_password_is_reset_through_the_emailed_link(page: Page, service: Service) -> None:
    email = sign_up(page)
    sign_out(page)

    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("status")).to_contain_text("we sent it a link")
    check_and_shoot(page, "forgot-password")
    link = _reset_link(service, email)
    assert link.startswith(f"{service.base_url}/dashboard/reset-password/")

    page.goto(link)
    page.get_by_label("New password").fill("a brand new passphrase")
    page.get_by_role("button", name="Save the new password").click()

    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    page.goto(link)  # single use
    expect(page.get_by_role("alert")).to_contain_text("This reset link is not valid any more")
    sign_out_via_new_context = page.context.browser.new_context(base_url=service.base_url)  # type: ignore[union-attr]
    other = sign_out_via_new_context.new_page()
    sign_in(other, email, PASSWORD)
    expect(other.get_by_role("alert")).to_have_text("The email or password is not right.")
    sign_in(other, email, "a brand new passphrase")
    expect(other.get_by_role("heading", name="Overview")).to_be_visible()
    sign_out_via_new_context.close()


def test_an_operator_gives_an_account_a_sign_in_with_password_stdin(page: Page, service: Service) -> None:
    email = new_email()
    command = [sys.executable, "-m", "flask", "--app", "web", "accounts", "create"]
    arguments = ["--email", email, "--tier", "pro", "--password-stdin"]
    created = subprocess.run(
        [*command, *arguments],
        input=f"{PASSWORD}\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=service.env,
        timeout=60,
        check=False,
    )
    assert created.returncode == 0, created.stderr
    assert created.stdout.count("sk_live_") == 1

    sign_in(page, email)

    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_text("Pro", exact=True)).to_be_visible()
    page.goto("/dashboard/keys")
    expect(page.get_by_role("heading", name="Admin key")).to_be_visible()


def _csrf(session: requests.Session, url: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', session.get(url, timeout=10).text)
    assert match
    return match.group(1)


def _sign_in(session: requests.Session, service: Service, email: str, password: str) -> requests.Response:
    token = _csrf(session, f"{service.base_url}/dashboard/sign-in")
    form = {"email": email, "password": password, "csrf_token": token}
    return session.post(f"{service.base_url}/dashboard/sign-in", data=form, timeout=10, allow_redirects=False)


def _reset_link(service: Service, email: str, timeout: float = 30) -> str:
    """The link in the reset email, once the worker has sent it."""
    give_up = time.monotonic() + timeout
    while not (received := service.mailbox.to(email)) and time.monotonic() < give_up:
        time.sleep(0.2)
    assert received, "no reset email arrived"
    match = re.search(r"(http\S+/dashboard/reset-password/\S+)", received[-1].text())
    assert match
    return match.group(1)
