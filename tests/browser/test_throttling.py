"""A form is never blocked by limits: a visitor past its minute, visitors past the key's share, and the
account past its rate limit or quota all get ``unknown`` (reason ``throttled``) with a token, and nothing
of it is charged."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask.testing import FlaskClient

from models.accounts import Tier
from tests.browser.helpers import NOT_AN_ADDRESS, form_key, from_page, visitor
from tests.fixtures.db import Persona, open_persona
from tests.limits.helpers import fill, usage_of, validate

THROTTLED = ("unknown", "throttled")


def ask(client: FlaskClient, form: Persona, who: dict[str, str]) -> dict[str, Any]:
    response = client.post(
        "/validate/browser", headers=from_page(form), environ_base=who, json={"email": NOT_AN_ADDRESS}
    )
    answer: dict[str, Any] = response.get_json()
    assert response.status_code == 200, answer
    assert answer["token"]
    return answer


def usage_log(client: FlaskClient, owner: Persona) -> list[dict[str, Any]]:
    response = client.get("/api/audit-log?type=rate_limit.exceeded", headers=owner.headers)
    entries: list[dict[str, Any]] = response.get_json()["data"]
    return entries


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


def test_visitors_together_get_only_the_keys_share_of_the_accounts_minute(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)  # 10 requests a minute: the form's key may take 5
    form = form_key(owner)

    answers = [ask(client, form, visitor()) for _ in range(6)]

    assert [outcome(answer) for answer in answers] == [("invalid", "syntax")] * 5 + [THROTTLED]
    assert validate(client, owner.headers).status_code == 200  # the account's servers keep the rest
    assert usage_of(client, owner.headers)["rateLimit"]["usedThisMinute"] == 6


def test_the_accounts_rate_limit_answers_throttled_rather_than_429(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)
    form = form_key(owner)
    for _ in range(10):
        assert validate(client, owner.headers).status_code == 200

    answer = ask(client, form, visitor())

    assert outcome(answer) == THROTTLED
    assert usage_of(client, owner.headers)["quota"]["used"] == 10
    refusals = usage_log(client, owner)
    assert len(refusals) == 1


def test_the_quota_hard_limit_answers_throttled_and_charges_nothing(
    at_instant: datetime, client: FlaskClient
) -> None:
    owner = open_persona(Tier.GROWTH)
    form = form_key(owner)
    fill(owner.account_id, 6000)  # 120% of 5,000: the last validation that runs

    answer = ask(client, form, visitor())

    assert outcome(answer) == THROTTLED
    assert usage_of(client, owner.headers)["quota"]["used"] == 6000
