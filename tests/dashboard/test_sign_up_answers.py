"""The sign-up form tells nobody who has an account: on the real service, an address with an account and
one without get the same answer, byte for byte but for the address itself, and one email each."""

from __future__ import annotations

import re
import secrets
import time

import requests

from tests.dashboard.service import TIME_LIMIT, Service
from tests.fixtures.db import open_owner
from tests.mail.mailbox import Mailbox

pytestmark = TIME_LIMIT

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
# Headers that differ between any two answers: when, which request, and the value of the session cookie.
PER_RESPONSE = {"date", "x-request-id", "set-cookie"}


def sign_up(service: Service, email: str) -> requests.Response:
    """The form as a new visitor posts it: its own session, the page's CSRF token."""
    browser = requests.Session()
    page = browser.get(f"{service.base_url}/dashboard/sign-up", timeout=30)
    token = CSRF.search(page.text)
    assert token is not None
    form = {"csrf_token": token[1], "email": email, "tier": "pro", "name": "Acme"}
    return browser.post(f"{service.base_url}/dashboard/sign-up", data=form, timeout=60)


def seen(answer: requests.Response, email: str) -> tuple[int, dict[str, str], list[str], bytes]:
    """What a client sees, less what differs for every answer: the cookies' names, not their values."""
    headers = {
        name.lower(): value for name, value in answer.headers.items() if name.lower() not in PER_RESPONSE
    }
    body = answer.content.replace(email.encode(), b"ADDRESS")
    return answer.status_code, headers, sorted(answer.cookies.keys()), body


def emails_to(mailbox: Mailbox, address: str, timeout: float = 20.0) -> list[str]:
    """What ``address`` received once the worker sent it (a moment more, in case a second one follows)."""
    give_up = time.monotonic() + timeout
    while not mailbox.to(address) and time.monotonic() < give_up:
        time.sleep(0.1)
    time.sleep(1.0)
    return [mail.text() for mail in mailbox.to(address)]


def test_an_address_with_an_account_gets_the_same_answer_as_a_new_one(service: Service) -> None:
    existing = open_owner("correct horse battery staple")  # owner-<8 hex>@example.com
    fresh = f"owner-{secrets.token_hex(4)}@example.com"  # as long: even Content-Length must not differ

    answers = [sign_up(service, email) for email in (existing, fresh)]

    assert seen(answers[0], existing) == seen(answers[1], fresh)
    assert answers[0].status_code == 200
    assert "Check your inbox" in answers[0].text
    existing_mail, fresh_mail = emails_to(service.mailbox, existing), emails_to(service.mailbox, fresh)
    assert len(existing_mail) == len(fresh_mail) == 1
    assert "already has one" in existing_mail[0]
    assert "/dashboard/verify-email/" in fresh_mail[0]
