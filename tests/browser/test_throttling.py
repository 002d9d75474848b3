"""The browser endpoint's minute throttles never block a form: a visitor past its minute and visitors past
the key's share get ``unknown`` (reason ``throttled``) with a token, and nothing of it is charged. (The key's
budget and the account's quota answer 429: ``test_publishable_budget``.)"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask.testing import FlaskClient

from models.accounts import Tier
from tests.browser.helpers import NOT_AN_ADDRESS, form_key, from_page, visitor
from tests.fixtures.db import Persona, open_persona
from tests.limits.helpers import usage_of, validate

THROTTLED = ("unknown", "throttled")


def ask(client: FlaskClient, form: Persona, who: dict[str, str]) -> dict[str, Any]:
    response = client.post(
        "/validate/browser", headers=from_page(form), environ_base=who, json={"email": NOT_AN_ADDRESS}
    )
    answer: dict[str, Any] = response.get_json()
    assert response.status_code == 200, answer
    assert answer["token"]
    return answer


def outcome(answer: dict[str, Any]) -> tuple[str, str]:
    return answer["verdict"], answer["reason"]


def test_a_visitor_past_its_minute_is_answered_unknown_and_not_charged(
    at_instant: datetime, client: FlaskClient, owner: Persona
) -> None:
    form, someone = form_key(owner), visitor()

    answers = [ask(client, form, someone) for _ in range(11)]

    assert [outcome(answer) for answer in answers[:10]] == [("invalid", "syntax")] * 10
    assert outcome(answers[10]) == THROTTLED
    assert answers[10]["disposable"] is None
    assert outcome(ask(client, form, visitor())) == ("invalid", "syntax")  # someone else is not held back
    assert usage_of(client, owner.headers)["quota"]["used"] == 11


def test_visitors_together_get_only_the_keys_share_of_the_plans_minute(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)  # 10 requests a minute: the form's key may take 5
    form = form_key(owner)

    answers = [ask(client, form, visitor()) for _ in range(6)]

    assert [outcome(answer) for answer in answers] == [("invalid", "syntax")] * 5 + [THROTTLED]
    assert validate(client, owner.headers).status_code == 200
    assert usage_of(client, owner.headers)["rateLimit"]["usedThisMinute"] == 1  # the page's are not in it
