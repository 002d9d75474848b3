"""The example sign-up server (``examples/signup_form.py``) against a bot, over real HTTP: the bot asks the
browser endpoint until its window is full, so its token for a disposable address holds a throttled
``unknown``, and posts the form with it; the server, told the verdict is not authoritative, validates the
address itself and refuses it."""

from __future__ import annotations

from typing import Any

import requests

from tests.browser.helpers import PAGE, form_key, from_page
from tests.browser.site import running_site
from tests.workers.harness import Gunicorn

VISITOR_LIMIT = 3
SERVICE_SETTINGS = {"BROWSER_VISITOR_PER_MINUTE": str(VISITOR_LIMIT)}
BOT = "bot@mailinator.com"


def throttled_answer(service: Gunicorn, headers: dict[str, str]) -> dict[str, Any]:
    """Ask until the visitor's window is full: within two windows at most, should a minute turn."""
    for _ in range(2 * VISITOR_LIMIT + 1):
        response = requests.post(
            f"{service.base_url}/validate/browser",
            headers=headers,
            json={"email": BOT, "timeout": 1},
            timeout=30,
        )
        answer: dict[str, Any] = response.json()
        if answer["reason"] == "throttled":
            return answer
    raise AssertionError("the visitor's window never filled")


def test_a_bots_throttled_token_is_not_trusted_and_the_server_refuses_the_disposable_address(
    service: Gunicorn,
) -> None:
    form = form_key()
    answer = throttled_answer(service, from_page(form))

    with running_site(PAGE, service.base_url, form) as site:
        sign_up = requests.post(
            site.origin, data={"email": BOT, "email_check_token": answer["token"]}, timeout=60
        )

    assert (answer["verdict"], answer["authoritative"]) == ("unknown", False)
    assert sign_up.status_code == 422
    assert "<h1>Sign-up refused</h1>" in sign_up.text
    assert "disposable (checked by the server)" in sign_up.text
