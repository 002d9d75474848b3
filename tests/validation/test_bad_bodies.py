"""Bad bodies of every kind: the flat 400 naming the field, or the spec's coded batch errors."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from models.session import transaction
from models.usage import UsagePeriod
from tests.fixtures.db import Persona
from tests.workers.harness import Api


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "email"),
        ({"email": 5}, "email"),
        ({"email": None}, "email"),
        ({"email": "a" * 243 + "@example.com"}, "email"),  # 255 characters
        ({"email": "a@example.com", "options": {"quickMode": "yes"}}, "options.quickMode"),
        ({"email": "a@example.com", "options": []}, "options"),
        ({"email": "a@example.com", "extra": 1}, "extra"),
        (["a@example.com"], "body"),
    ],
)
def test_validate_refuses_a_bad_body_naming_the_field(
    live_api: Api, owner: Persona, body: object, field: str
) -> None:
    response = live_api.call("post", "/validate", owner, json=body)

    assert response.status_code == 400, response.text
    error = response.json()
    assert error["error"] == "Bad Request"
    assert error["field"] == field
    assert error["message"]


def test_254_characters_are_accepted(live_api: Api, owner: Persona) -> None:
    email = "a" * 64 + "@" + ".".join(["b" * 61] * 3) + ".com"
    assert len(email) == 254

    response = live_api.call(
        "post", "/validate", owner, json={"email": email, "options": {"quickMode": True}}
    )

    assert response.status_code == 200


def test_a_body_that_is_not_json_is_refused(live_api: Api, owner: Persona) -> None:
    response = live_api.call(
        "post", "/validate", owner, data="{not json", headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.json()["error"] == "Bad Request"


def test_an_empty_batch_is_batch_empty(live_api: Api, owner: Persona) -> None:
    response = live_api.call("post", "/validate/batch", owner, json={"emails": []})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "BATCH_EMPTY"


def test_more_than_100_addresses_is_batch_too_large(live_api: Api, owner: Persona) -> None:
    response = live_api.call("post", "/validate/batch", owner, json={"emails": ["a@example.com"] * 101})

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "BATCH_TOO_LARGE"
    assert error["details"] == {"submitted": 101, "maximum": 100}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "emails"),
        ({"emails": "a@example.com"}, "emails"),
        ({"emails": ["a@example.com", 7]}, "emails[1]"),
        ({"emails": ["a@example.com"], "options": {"skipCatchAll": 1}}, "options.skipCatchAll"),
        ({"emails": None}, "emails"),
        ({"emails": {"0": "a@example.com"}}, "emails"),
        ({"emails": ["a@example.com", None]}, "emails[1]"),
        ({"emails": ["a@example.com"], "options": "quick"}, "options"),
        ({"emails": ["a@example.com"], "extra": True}, "extra"),
        (["a@example.com"], "body"),
        ("a@example.com", "body"),
    ],
)
def test_batch_refuses_a_bad_body_naming_the_field(
    live_api: Api, owner: Persona, body: object, field: str
) -> None:
    response = live_api.call("post", "/validate/batch", owner, json=body)

    assert response.status_code == 400, response.text
    assert response.json()["field"] == field


def test_a_refused_batch_charges_nothing(live_api: Api, owner: Persona) -> None:
    live_api.call("post", "/validate/batch", owner, json={"emails": ["a@example.com"] * 101})

    with transaction() as session:
        used = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == owner.account_id))
    assert not used


def test_a_batch_body_that_is_not_json_is_refused(live_api: Api, owner: Persona) -> None:
    response = live_api.call(
        "post", "/validate/batch", owner, data='{"emails": [', headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 400
    assert response.json()["error"] == "Bad Request"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("limit=ten", "limit"),
        ("startingAfter=-1", "startingAfter"),
    ],
)
def test_results_refuse_a_bad_query_naming_the_parameter(
    live_api: Api, owner: Persona, query: str, field: str
) -> None:
    response = live_api.call("get", f"/batches/bat_000000000000000000000000/results?{query}", owner)

    assert response.status_code == 400, response.text
    assert response.json()["field"] == field
