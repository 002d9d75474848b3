"""/openapi.json names every header real answers carry, on the answers that carry them.

Answers come from the real app: a normal 200, a 400, a 404 for another account's key, and from
``POST /validate`` the rate limit's 429 and the quota's, all with the quota past 80% so its headers are on.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from core import clock
from models.accounts import Tier
from tests.fixtures.db import open_persona
from tests.limits.helpers import fill, usage_of, validate
from web.openapi_headers import HEADERS


def documented(client: FlaskClient, path: str, method: str, status: int) -> set[str]:
    operation = client.get("/openapi.json").get_json()["paths"][path][method]
    return set(operation["responses"][str(status)].get("headers", {}))


def carried(response: TestResponse) -> set[str]:
    return {name for name, _ in response.headers.items() if name in HEADERS}


def test_every_header_an_answer_carries_is_documented_for_its_status(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth, other = open_persona(Tier.GROWTH), open_persona(Tier.GROWTH)
    fill(growth.account_id, 4_500)  # warning: the X-Quota-* headers are on every answer
    answers = [
        (client.get("/api/keys", headers=growth.headers), "/api/keys", "get"),
        (client.post("/api/keys", headers=growth.headers, json={}), "/api/keys", "post"),
        (client.get(f"/api/keys/{other.key_id}", headers=growth.headers), "/api/keys/{key_id}", "get"),
        (client.get("/api/keys", headers={"X-API-Key": "sk_live_unknown"}), "/api/keys", "get"),
        (client.get("/health"), "/health", "get"),
    ]
    answers += [(validate(client, growth.headers), "/validate", "post") for _ in range(11)]
    used = usage_of(client, growth.headers)["quota"]["used"]
    fill(growth.account_id, 6_000 - used)  # at the hard limit: next minute, the quota's own 429
    clock.move(timedelta(minutes=1))
    answers.append((validate(client, growth.headers), "/validate", "post"))
    assert answers[-1][0].status_code == 429, answers[-1][0].get_json()
    assert answers[-1][0].get_json()["error"]["code"] == "RATE_LIMIT_EXCEEDED"
    statuses = {response.status_code for response, _, _ in answers}
    assert {200, 400, 401, 404, 429} <= statuses
    for response, path, method in answers:
        assert carried(response) <= documented(client, path, method, response.status_code), (path, response)
    assert {"X-Quota-Warning", "X-RateLimit-Reset", "Retry-After"} <= set().union(
        *(carried(response) for response, _, _ in answers)
    )
