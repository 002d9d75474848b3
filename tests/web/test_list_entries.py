"""Entries of ``allowedIps`` and ``emails`` the service refuses (blank, NUL, unpaired surrogates) are 400s
naming the entry, never 500s, and /openapi.json refuses them too, so the document and the service agree
(the API over real HTTP)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.fixtures.db import Persona
from tests.workers.harness import Api, job_env, live_api

__all__ = ["job_env", "live_api"]
JSON = {"Content-Type": "application/json"}
NUL, LONE_HIGH, LONE_LOW = "\\u0000", "\\ud800", "\\udc00"  # as escapes in the JSON text sent


def post(live_api: Api, persona: Persona, method: str, path: str, text: str) -> Any:
    """Send ``text`` as the JSON body verbatim: a lone surrogate cannot be serialised any other way."""
    return live_api.call(method, path, persona, data=text.encode(), headers=JSON)


def published_items(live_api: Api, path: str, method: str, field: str) -> dict[str, Any]:
    document = live_api.call("get", "/openapi.json").json()
    body = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    schema = document["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    items: dict[str, Any] = schema["properties"][field]["items"]
    return items


def published_accepts(items: dict[str, Any], value: str) -> bool:
    return bool(Draft202012Validator(items).is_valid(value))


@pytest.mark.parametrize("entry", ["", "   ", f"10.0.0.1{NUL}", LONE_HIGH, f"10.0.0.1{LONE_LOW}"])
@pytest.mark.parametrize("method", ["post", "patch"])
def test_a_blank_nul_or_surrogate_allowlist_entry_is_a_400_naming_it(
    live_api: Api, owner: Persona, entry: str, method: str
) -> None:
    path = "/api/keys" if method == "post" else f"/api/keys/{owner.key_id}"
    text = f'{{"name": "Office server", "allowedIps": ["10.0.0.0/24", "{entry}"]}}'
    response = post(live_api, owner, method, path, text)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "allowedIps[1]"


@pytest.mark.parametrize(
    "entry", ["", "0", "000", "10.0.0.7/24", "2001:db8::1/32", "192.0.2.0/024", "1::2::3"]
)
def test_the_document_refuses_an_allowlist_entry_the_service_refuses(
    live_api: Api, owner: Persona, entry: str
) -> None:
    """A validator that knows no custom format (any client's, schemathesis run from outside) sees it too."""
    items = published_items(live_api, "/api/keys", "post", "allowedIps")
    assert not published_accepts(items, entry)
    response = post(
        live_api, owner, "post", "/api/keys", f'{{"name": "Office server", "allowedIps": ["{entry}"]}}'
    )
    assert (response.status_code, response.json()["field"]) == (400, "allowedIps[0]"), response.text


@pytest.mark.parametrize(
    "entry", ["::", " 2001:db8::/32 ", "10.0.0.0/8", "0:0:0:0:0:0:0:1", "2001:DB8:8000::/33"]
)
def test_the_document_and_the_service_take_the_same_allowlist_entries(
    live_api: Api, owner: Persona, entry: str
) -> None:
    items = published_items(live_api, "/api/keys", "post", "allowedIps")
    assert published_accepts(items, entry)
    response = post(
        live_api, owner, "post", "/api/keys", f'{{"name": "Office server", "allowedIps": ["{entry}"]}}'
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("entry", [NUL, f"ann{NUL}@example.com", LONE_HIGH, f"ann{LONE_LOW}@example.com"])
def test_a_nul_or_surrogate_in_a_batch_address_is_a_400_naming_it(
    live_api: Api, owner: Persona, entry: str
) -> None:
    text = f'{{"emails": ["ann@example.com", "{entry}"], "options": {{"quickMode": true}}}}'
    response = post(live_api, owner, "post", "/validate/batch", text)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "emails[1]"


def test_the_document_refuses_nul_in_batch_addresses_and_keeps_the_empty_one(live_api: Api) -> None:
    """An empty address is answered (invalid, as every address that cannot be validated), not refused."""
    items = published_items(live_api, "/validate/batch", "post", "emails")
    assert not published_accepts(items, "ann\x00@example.com")
    assert published_accepts(items, "")


def test_an_empty_batch_address_is_answered_invalid(live_api: Api, owner: Persona) -> None:
    response = live_api.call("post", "/validate/batch", owner, json={"emails": [""]})
    assert response.status_code == 200, response.text
    assert response.json()["results"][0]["severity"] == "invalid"


def test_the_document_says_unpaired_surrogates_are_refused(live_api: Api) -> None:
    assert "unpaired UTF-16 surrogates" in live_api.call("get", "/openapi.json").json()["info"]["description"]
