"""The quota and rate limit through the real ``POST /validate/batch``.

``Prefer: respond-async`` makes the endpoint answer 202 as soon as the batch is charged and stored, so no
worker is needed: what is under test is admission, not validation.
"""

from __future__ import annotations

from datetime import datetime

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from models.accounts import Tier
from tests.fixtures.db import open_persona
from tests.limits.helpers import body, fill, usage_of


def batch(client: FlaskClient, headers: dict[str, str], size: int) -> TestResponse:
    emails = [f"person{i}@example.com" for i in range(size)]
    return client.post(
        "/validate/batch", json={"emails": emails}, headers={**headers, "Prefer": "respond-async"}
    )


def test_a_batch_of_n_uses_n_validations_and_one_request(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    response = batch(client, growth.headers, 100)
    assert response.status_code == 202, response.data
    assert response.headers["X-RateLimit-Remaining"] == "9"
    usage = usage_of(client, growth.headers)
    assert (usage["quota"]["used"], usage["rateLimit"]["usedThisMinute"]) == (100, 1)


def test_a_batch_that_would_cross_the_hard_limit_is_refused_whole(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 5_990)
    refused = batch(client, growth.headers, 11)
    assert refused.status_code == 429
    error = body(refused)["error"]
    assert (error["code"], error["requested"], error["used"], error["hardLimit"]) == (
        "RATE_LIMIT_EXCEEDED",
        11,
        5_990,
        6_000,
    )
    assert refused.headers["Retry-After"] == str(error["retryAfter"])
    assert usage_of(client, growth.headers)["quota"]["used"] == 5_990
    fits = batch(client, growth.headers, 10)
    assert fits.status_code == 202
    assert fits.headers["X-Quota-State"] == "blocked"
    assert usage_of(client, growth.headers)["quota"] == {
        "limit": 5_000,
        "used": 6_000,
        "remaining": 0,
        "percentage": 120.0,
        "inGracePeriod": True,
        "hardLimit": 6_000,
        "usedByPublishableKeys": 0,
    }
    assert batch(client, growth.headers, 1).status_code == 429


def test_an_empty_or_oversized_batch_charges_nothing(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    assert batch(client, growth.headers, 0).status_code == 400
    assert batch(client, growth.headers, 101).status_code == 400
    assert usage_of(client, growth.headers)["quota"]["used"] == 0
