"""A body that is not JSON, or JSON that is not an object, is a flat 400 naming ``body`` and saying what
is wrong, on every JSON endpoint alike (the API over real HTTP)."""

from __future__ import annotations

import pytest

from models.accounts import Tier
from tests.fixtures.db import Persona, open_persona
from tests.workers.harness import Api, job_env, live_api

__all__ = ["job_env", "live_api"]
JSON = {"Content-Type": "application/json"}
ENDPOINTS = [
    ("post", "/validate"),
    ("post", "/validate/batch"),
    ("post", "/api/keys"),
    ("post", "/webhooks"),
    ("post", "/webhooks/test"),
    ("post", "/api/sub-users"),
    ("put", "/api/white-label"),
    ("post", "/api/custom-domains"),
]
BROKEN = "The request body is not valid JSON"
DEEP = "The request body is nested more than 32 levels deep."


@pytest.fixture(scope="module")
def reseller(database_url: str) -> Persona:
    """An Enterprise Plus admin, so the reseller routes answer rather than refuse the plan."""
    return open_persona(Tier.ENTERPRISE_PLUS)


def send(live_api: Api, persona: Persona, method: str, path: str, body: bytes) -> dict[str, object]:
    response = live_api.call(method, path, persona, data=body, headers=JSON)
    assert response.status_code == 400, response.text
    error: dict[str, object] = response.json()
    assert error["error"] == "Bad Request"
    return error


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b'{\n  "email": "ann@example.com",\n  oops\n}',
            f"{BROKEN}: expecting property name enclosed in double quotes at line 3, column 3.",
        ),
        (b'["ann@example.com"]', "The request body must be a JSON object, not an array."),
    ],
)
@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_every_json_endpoint_names_the_body_and_what_is_wrong_with_it(
    live_api: Api, reseller: Persona, method: str, path: str, body: bytes, message: str
) -> None:
    assert send(live_api, reseller, method, path, body) == {
        "error": "Bad Request",
        "message": message,
        "field": "body",
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "The request body is empty; send a JSON object."),
        (b"  \r\n", "The request body is empty; send a JSON object."),
        (
            b'{"email": "ann@example.com"} {}',
            f"{BROKEN}: extra data at line 1, column 30.",
        ),
        (
            b'{"email": "ann@example.com",}',
            f"{BROKEN}: expecting property name enclosed in double quotes at line 1, column 29.",
        ),
        (
            b'{"email": "\xff@example.com"}',
            f"{BROKEN}: it is not UTF-8 text (byte 12 cannot be decoded).",
        ),
        (b'{"email": "ann@example.com", "options": ' + b"[" * 32 + b"]" * 32 + b"}", DEEP),
        (b"[" * 5000 + b"]" * 5000, DEEP),  # deeper than the JSON parser itself goes
        (b"null", "The request body must be a JSON object, not null."),
        (b'"ann@example.com"', "The request body must be a JSON object, not a string."),
        (b"42", "The request body must be a JSON object, not a number."),
        (b"true", "The request body must be a JSON object, not a boolean."),
    ],
)
def test_a_body_empty_broken_too_deep_or_not_an_object_is_a_400_saying_which(
    live_api: Api, owner: Persona, body: bytes, message: str
) -> None:
    assert send(live_api, owner, "post", "/validate", body) == {
        "error": "Bad Request",
        "message": message,
        "field": "body",
    }
