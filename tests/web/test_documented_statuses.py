"""What the service answers, /openapi.json documents: each status provoked here over real HTTP is listed
for its operation, and the document's text states rules, never internal references."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from models.accounts import Tier
from settings import get_settings
from tests.fixtures.db import Persona, open_persona
from tests.workers.harness import Api, job_env, live_api

__all__ = ["job_env", "live_api"]
# A section of our spec, our decision log, a module of ours: a reader of the document has none of them.
INTERNAL = re.compile(r"\bspec \d|docs/|decisions\.md|\b(?:services|web|tests|models)\.\w", re.IGNORECASE)


@pytest.fixture(scope="module")
def reseller(database_url: str) -> Persona:
    return open_persona(Tier.ENTERPRISE_PLUS)


@pytest.fixture(scope="module")
def document(live_api: Api) -> dict[str, Any]:
    body: dict[str, Any] = live_api.call("get", "/openapi.json").json()
    return body


def documented(document: dict[str, Any], path: str, method: str) -> set[int]:
    return {int(status) for status in document["paths"][path][method]["responses"]}


def test_verifying_a_domain_whose_record_is_missing_is_a_documented_422(
    live_api: Api, reseller: Persona, document: dict[str, Any]
) -> None:
    hostname = f"api-{secrets.token_hex(4)}.example.com"  # nothing publishes its TXT record
    domain = live_api.call("post", "/api/custom-domains", reseller, json={"hostname": hostname}).json()
    response = live_api.call("post", f"/api/custom-domains/{domain['id']}/verify", reseller)
    assert response.json()["error"]["code"] == "DOMAIN_NOT_VERIFIED"
    assert response.status_code in documented(document, "/api/custom-domains/{domain_id}/verify", "post")


def test_a_commission_report_of_a_month_not_begun_is_a_documented_404(
    live_api: Api, reseller: Persona, document: dict[str, Any]
) -> None:
    response = live_api.call("get", "/api/commissions?period=4025-10", reseller)
    assert response.status_code == 404, response.text
    assert 404 in documented(document, "/api/commissions", "get")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/validate/batch", {"emails": ["ann@example.com"]}),
        ("/bulk/jobs?quickMode=true", ["ann@example.com"]),
    ],
)
def test_an_idempotency_key_reused_for_another_request_is_a_documented_422(
    live_api: Api, owner: Persona, document: dict[str, Any], path: str, body: Any
) -> None:
    key = {"Idempotency-Key": secrets.token_hex(8), "Prefer": "respond-async"}
    first = live_api.call("post", path, owner, json=body, headers=key)
    assert first.status_code == 202, first.text
    other = {"emails": ["bob@example.com"]} if isinstance(body, dict) else ["bob@example.com"]
    response = live_api.call("post", path, owner, json=other, headers=key)
    assert response.status_code == 422, response.text
    operation = path.partition("?")[0]
    assert {409, 422} <= documented(document, operation, "post")  # 409: the first still being received


def test_a_json_list_sent_as_csv_is_a_documented_400(
    live_api: Api, owner: Persona, document: dict[str, Any]
) -> None:
    csv = {"Content-Type": "text/csv"}
    response = live_api.call("post", "/bulk/jobs", owner, data=b'["ann@example.com"]', headers=csv)
    assert (response.status_code, response.json()["field"]) == (400, "body")
    assert 400 in documented(document, "/bulk/jobs", "post")
    described = document["paths"]["/bulk/jobs"]["post"]["requestBody"]["content"]["text/csv"]["schema"]
    assert not re.search(described["pattern"], '["ann@example.com"]')
    assert "JSON" in described["description"]


def texts(node: object) -> Iterator[str]:
    """Every string of the document, keys aside."""
    if isinstance(node, dict):
        for value in node.values():
            yield from texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from texts(value)
    elif isinstance(node, str):
        yield node


def test_the_document_cites_no_internal_reference(document: dict[str, Any]) -> None:
    cited = sorted({text for text in texts(document) if INTERNAL.search(text)})
    assert cited == []


def test_a_response_is_described_by_a_whole_paragraph(document: dict[str, Any]) -> None:
    """A docstring wrapped over lines once gave descriptions cut mid-sentence ("... With ``retrying``")."""
    batch = document["paths"]["/validate/batch"]["post"]["responses"]["200"]["description"]
    assert batch.endswith("the batch is still running.")


def test_every_operation_documents_the_414_of_the_http_server(document: dict[str, Any]) -> None:
    """gunicorn answers a request line over 4,094 bytes itself, as HTML, before the API sees it."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert list(operation["responses"]["414"]["content"]) == ["text/html"], (method, path)


def test_a_body_over_the_limit_is_a_documented_413_even_where_no_body_is_read(
    live_api: Api, owner: Persona, document: dict[str, Any]
) -> None:
    """The limit is enforced before the route is looked at (a GET of the key list reads no body)."""
    too_large = b"x" * (get_settings().max_body_bytes + 1)
    response = live_api.call("get", "/api/keys", owner, data=too_large)
    assert response.status_code == 413, response.text
    assert 413 in documented(document, "/api/keys", "get")
