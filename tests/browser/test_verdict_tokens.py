"""A form's server confirms the verdict token its page passed on, over real HTTP (gunicorn, a worker, the
mail lab): a genuine token of a finished check once, with the verdict the page was shown; a throttled or
timed-out answer's token confirms nothing and says so; a forged, replayed, expired or another account's
token, or one about another address, is refused saying which."""

from __future__ import annotations

import json
import time
from typing import Any

import requests
from cryptography.fernet import Fernet

from models.accounts import Tier
from tests.browser.helpers import NOT_AN_ADDRESS, form_key, from_page
from tests.fixtures.db import Persona, open_persona
from tests.workers.harness import Gunicorn

LIFETIME = 10  # VERDICT_TOKEN_SECONDS of this module's service: expiry is waited for, not faked
SERVICE_SETTINGS = {"VERDICT_TOKEN_SECONDS": str(LIFETIME), "BROWSER_VISITOR_PER_MINUTE": "1000"}
VERDICT_FIELDS = ("email", "verdict", "reason", "disposable", "role", "suggestion")


def page_answer(
    service: Gunicorn, form: Persona, email: str = NOT_AN_ADDRESS, budget: float = 10
) -> dict[str, Any]:
    response = requests.post(
        f"{service.base_url}/validate/browser",
        headers=from_page(form),
        json={"email": email, "timeout": budget},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def confirm(service: Gunicorn, server: Persona, token: str, email: str = NOT_AN_ADDRESS) -> requests.Response:
    return requests.post(
        f"{service.base_url}/validate/confirm",
        headers=server.headers,
        json={"token": token, "email": email},
        timeout=30,
    )


def refusal(response: requests.Response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_the_servers_confirmation_gives_back_the_verdict_the_page_was_shown(service: Gunicorn) -> None:
    form = form_key()
    answer = page_answer(service, form, "Bob@Mailbox.test")

    confirmed = confirm(service, form, answer["token"], " bob@mailbox.test ")

    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert (answer["verdict"], answer["authoritative"]) == ("valid", True)
    assert {name: body[name] for name in VERDICT_FIELDS} == {name: answer[name] for name in VERDICT_FIELDS}
    assert (body["confirmed"], body["authoritative"], body["message"]) == (True, True, None)
    assert body["keyId"] == form.key_id
    assert (answer["livemode"], body["livemode"]) == (True, True)
    assert body["validationId"].startswith("val_")
    settled = requests.get(body["resultsUrl"], headers=form.headers, timeout=30).json()
    assert settled["results"][0]["email"] == "bob@mailbox.test"
    assert settled["results"][0]["checks"]["smtp"]["passed"] is True


def test_a_throttled_answers_token_confirms_nothing_and_sends_the_server_to_validate(
    service: Gunicorn,
) -> None:
    form = form_key(open_persona(Tier.GROWTH))  # 10 requests a minute: the form's key may take 5
    for _ in range(5):
        page_answer(service, form)
    answer = page_answer(service, form, "bot@mailinator.com")  # the sixth in the minute: throttled

    first = confirm(service, form, answer["token"], "bot@mailinator.com")
    again = confirm(service, form, answer["token"], "bot@mailinator.com")

    assert (answer["verdict"], answer["reason"], answer["authoritative"]) == ("unknown", "throttled", False)
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["confirmed"], body["authoritative"], body["confirmedAt"]) == (False, False, None)
    assert "not the result of a completed check" in body["message"]
    assert "validate bot@mailinator.com from your server with POST /validate" in body["message"]
    assert again.json()["authoritative"] is False  # nothing was confirmed, so nothing can be replayed


def test_an_answer_cut_short_by_its_time_budget_confirms_nothing(service: Gunicorn) -> None:
    form = form_key()
    answer = page_answer(service, form, "alice@slow.test", budget=1)  # the worker waits its 1 s banner

    confirmed = confirm(service, form, answer["token"], "alice@slow.test")

    assert (answer["reason"], answer["authoritative"]) == ("timeout", False)
    body = confirmed.json()
    assert (confirmed.status_code, body["confirmed"], body["authoritative"]) == (200, False, False)
    assert "before the check finished" in body["message"]
    assert body["validationId"].startswith("val_")  # the validation goes on; its result is the server's


def test_a_forged_token_is_refused(service: Gunicorn) -> None:
    form = form_key()
    token = page_answer(service, form)["token"]
    altered = token[:60] + ("A" if token[60] != "A" else "B") + token[61:]
    claims = {"i": "forged", "a": form.account_id, "k": form.key_id, "m": "live", "j": None}
    verdict = {"email": NOT_AN_ADDRESS, "verdict": "valid", "reason": None}
    claims["v"] = verdict | {"disposable": False, "role": False, "suggestion": None}
    sealed_elsewhere = Fernet(Fernet.generate_key()).encrypt(json.dumps(claims).encode()).decode()

    for forged in (altered, sealed_elsewhere, "not-a-token"):
        response = confirm(service, form, forged)
        assert refusal(response) == (422, "TOKEN_INVALID"), forged
        assert "do not trust the verdict" in response.json()["error"]["message"]


def test_a_token_confirms_once_and_a_replay_is_refused(service: Gunicorn) -> None:
    form = form_key()
    token = page_answer(service, form)["token"]

    first, replay = confirm(service, form, token), confirm(service, form, token)

    assert first.status_code == 200, first.text
    assert refusal(replay) == (409, "TOKEN_ALREADY_CONFIRMED")
    assert "replay" in replay.json()["error"]["message"]


def test_a_token_past_its_lifetime_is_refused_as_expired(service: Gunicorn) -> None:
    form = form_key()
    token = page_answer(service, form)["token"]

    time.sleep(LIFETIME + 1.5)
    expired = confirm(service, form, token)

    assert refusal(expired) == (422, "TOKEN_EXPIRED")
    assert f"expired {LIFETIME} s after it was issued" in expired.json()["error"]["message"]


def test_another_accounts_token_is_refused_and_stays_unspent(service: Gunicorn) -> None:
    form, outsider = form_key(), open_persona()
    token = page_answer(service, form)["token"]

    foreign = confirm(service, outsider, token)

    assert refusal(foreign) == (422, "TOKEN_OF_ANOTHER_ACCOUNT")
    assert confirm(service, form, token).status_code == 200


def test_a_token_about_another_address_than_the_form_submitted_is_refused(service: Gunicorn) -> None:
    form = form_key()
    token = page_answer(service, form, "bob@mailbox.test")["token"]

    swapped = confirm(service, form, token, "mallory@mailbox.test")

    assert refusal(swapped) == (422, "TOKEN_EMAIL_MISMATCH")
    assert "bob@mailbox.test" in swapped.json()["error"]["message"]
    assert confirm(service, form, token, "bob@mailbox.test").status_code == 200


def test_the_publishable_key_cannot_confirm_what_its_page_reports(service: Gunicorn) -> None:
    form = form_key()
    token = page_answer(service, form)["token"]

    response = confirm(
        service, Persona(form.account_id, form.key_id, form.publishable, form.publishable), token
    )

    assert refusal(response) == (403, "INSUFFICIENT_PERMISSIONS")
