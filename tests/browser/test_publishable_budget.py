"""A publishable key's own budget: past its day or its billing period the page is answered 429
``PUBLISHABLE_KEY_BUDGET_EXCEEDED`` (spec 7.1's coded shape, ``Retry-After``), nothing validated or charged;
the owner sets it through the API and the next request sees it; test keys count on their own."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask.testing import FlaskClient

from core import clock
from models.accounts import Tier
from tests.browser.helpers import PAGE, form_key, page_asks, set_budget
from tests.fixtures.db import Persona, open_persona, open_twins
from tests.limits.helpers import body, usage_of

NEXT_MIDNIGHT = "2031-05-15T00:00:00.000Z"  # the day after ``INSTANT``


def statuses(client: FlaskClient, form: Persona, count: int) -> list[int]:
    return [page_asks(client, form).status_code for _ in range(count)]


def rate_limit_entries(client: FlaskClient, owner: Persona) -> list[dict[str, Any]]:
    response = client.get("/api/audit-log?type=rate_limit.exceeded", headers=owner.headers)
    entries: list[dict[str, Any]] = body(response)["data"]
    return entries


def test_a_new_key_has_the_small_default_budget(client: FlaskClient, owner: Persona) -> None:
    created = client.post("/api/keys", headers=owner.headers, json={"name": "Sign-up form"})

    assert created.status_code == 201
    key = body(created)
    assert (key["publishableDailyBudget"], key["publishableMonthlyBudget"]) == (100, 1_000)


def test_past_the_days_budget_the_page_is_answered_429_in_the_coded_shape(
    at_instant: datetime, client: FlaskClient, owner: Persona
) -> None:
    form = form_key(owner)
    assert set_budget(client, owner, form, daily=3).status_code == 200

    assert statuses(client, form, 3) == [200, 200, 200]
    refused = page_asks(client, form)

    assert refused.status_code == 429
    seconds_to_midnight = int((datetime.fromisoformat(NEXT_MIDNIGHT) - at_instant).total_seconds())
    assert body(refused) == {
        "error": {
            "code": "PUBLISHABLE_KEY_BUDGET_EXCEEDED",
            "message": f"This publishable key's daily budget of 3 validations is used up; it renews at "
            f"{NEXT_MIDNIGHT}. The key's owner sets the budget (publishableDailyBudget on the key).",
            "retryAfter": seconds_to_midnight,
            "budget": "daily",
            "limit": 3,
            "used": 3,
            "resetsAt": NEXT_MIDNIGHT,
        }
    }
    assert refused.headers["Retry-After"] == str(seconds_to_midnight)
    assert refused.headers["Access-Control-Allow-Origin"] == PAGE  # the page's script may read why
    assert (refused.headers["X-RateLimit-Limit"], refused.headers["X-RateLimit-Remaining"]) == ("3", "0")
    assert usage_of(client, owner.headers)["quota"]["used"] == 3  # the refusal charged nothing
    assert statuses(client, form, 2) == [429, 429]
    assert len(rate_limit_entries(client, owner)) == 1  # audited once a day, not per refusal

    clock.move(timedelta(hours=14))  # past midnight
    assert statuses(client, form, 1) == [200]


def test_past_the_periods_budget_the_page_waits_for_the_next_period(
    at_instant: datetime, client: FlaskClient, owner: Persona
) -> None:
    form = form_key(owner)
    assert set_budget(client, owner, form, daily=10, monthly=4).status_code == 200
    assert statuses(client, form, 2) == [200, 200]
    clock.move(timedelta(days=1))

    assert statuses(client, form, 3) == [200, 200, 429]

    period_end = usage_of(client, owner.headers)["period"]["end"]
    refused = body(page_asks(client, form))["error"]
    assert (refused["code"], refused["budget"], refused["used"]) == (
        "PUBLISHABLE_KEY_BUDGET_EXCEEDED",
        "monthly",
        4,
    )
    assert refused["resetsAt"] == period_end
    assert refused["retryAfter"] == int((datetime.fromisoformat(period_end) - clock.now()).total_seconds())
    clock.move(datetime.fromisoformat(period_end) - clock.now())
    assert statuses(client, form, 1) == [200]  # a new period, a new budget


def test_the_owner_changes_the_budget_and_the_next_request_sees_it(
    at_instant: datetime, client: FlaskClient, owner: Persona
) -> None:
    form = form_key(owner)
    changed = set_budget(client, owner, form, daily=1)
    assert (changed.status_code, body(changed)["publishableDailyBudget"]) == (200, 1)
    assert statuses(client, form, 2) == [200, 429]

    assert set_budget(client, owner, form, daily=2).status_code == 200
    assert statuses(client, form, 2) == [200, 429]

    assert set_budget(client, owner, form, daily=0).status_code == 200  # the form's pages turned off
    assert statuses(client, form, 1) == [429]
    entry = body(client.get("/api/audit-log?type=key.updated", headers=owner.headers))["data"][0]
    assert entry["details"]["publishableDailyBudget"] == 0


def test_a_budget_that_is_not_a_whole_number_from_zero_is_refused_naming_the_field(
    client: FlaskClient, owner: Persona
) -> None:
    form = form_key(owner)
    assert set_budget(client, owner, form, monthly=2_000.0).status_code == 200  # JSON's 2000.0 is whole
    for wrong in (-1, "50", 1.5, 10_000_001):
        refused = client.patch(
            f"/api/keys/{form.key_id}", json={"publishableMonthlyBudget": wrong}, headers=owner.headers
        )
        assert refused.status_code == 400, wrong
        assert body(refused)["field"] == "publishableMonthlyBudget"


def test_a_test_key_counts_its_budget_apart_and_is_never_charged(
    at_instant: datetime, client: FlaskClient
) -> None:
    live, test = open_twins(Tier.GROWTH)
    live_form, test_form = form_key(live), form_key(test, livemode=False)
    assert set_budget(client, test, test_form, daily=2).status_code == 200
    assert set_budget(client, live, live_form, daily=2).status_code == 200

    assert statuses(client, test_form, 3) == [200, 200, 429]
    assert statuses(client, live_form, 3) == [200, 200, 429]  # the test key's answers took nothing
    assert usage_of(client, live.headers)["quota"]["used"] == 2


def test_an_outsider_cannot_change_anothers_budget(client: FlaskClient, owner: Persona) -> None:
    form, outsider = form_key(owner), open_persona()

    refused = set_budget(client, outsider, form, daily=1_000_000)

    assert refused.status_code == 404
    key = body(client.get(f"/api/keys/{form.key_id}", headers=owner.headers))
    assert key["publishableDailyBudget"] == 100
