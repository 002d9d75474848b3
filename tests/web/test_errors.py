"""Protocol errors in the flat shape, request ids on every response, no stack traces for clients."""

from __future__ import annotations

import logging

import pytest

from tests.fixtures.db import Persona, create_test_app
from tests.fixtures.failures import table_missing


def test_unknown_path_is_a_flat_404_with_a_request_id(client) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json["error"] == "Not Found"
    assert response.json["message"]
    assert response.headers["X-Request-Id"].startswith("req_")


def test_wrong_method_is_a_flat_405_that_lists_the_allowed_ones(client, owner: Persona) -> None:
    response = client.put("/api/keys", headers=owner.headers)
    assert response.status_code == 405
    assert response.json["error"] == "Method Not Allowed"
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "POST"}


def test_a_crash_is_a_flat_500_with_the_request_id_and_no_trace(client, owner: Persona, caplog) -> None:
    with table_missing("webhook_endpoints"):  # the code ran ahead of its migration: a bug of ours
        response = client.get("/webhooks", headers=owner.headers | {"X-Request-Id": "trace-me-123"})
    assert response.status_code == 500
    assert response.json == {
        "error": "Internal Server Error",
        "message": "Something went wrong on our side. Quote the requestId if you contact us.",
        "requestId": "trace-me-123",
    }
    answer = response.get_data(as_text=True)
    assert "webhook_endpoints" not in answer
    assert "Traceback" not in answer
    crash = next(record for record in caplog.records if record.levelno == logging.ERROR)
    assert crash.requestId == "trace-me-123"
    assert 'relation "webhook_endpoints" does not exist' in caplog.text


def test_oversized_body_is_a_flat_413(database_url, owner: Persona) -> None:
    client = create_test_app(max_body_bytes=1000).test_client()
    response = client.post("/api/keys", headers=owner.headers, json={"name": "x" * 2000})
    assert response.status_code == 413
    assert response.json == {
        "error": "Request Entity Too Large",
        "message": "Request bodies are limited to 1000 bytes.",
    }


def test_a_body_that_is_not_json_is_refused_with_what_to_send(client, owner: Persona) -> None:
    response = client.post("/api/keys", headers=owner.headers, data="name=Form+post")
    assert response.status_code == 415
    assert response.json["message"] == "Send the body as JSON with Content-Type: application/json."


def test_malformed_json_is_a_flat_400_naming_the_body(client, owner: Persona) -> None:
    response = client.post(
        "/api/keys", headers=owner.headers | {"Content-Type": "application/json"}, data="{oops"
    )
    assert response.status_code == 400
    assert response.json == {
        "error": "Bad Request",
        "message": "The request body is not valid JSON: "
        "expecting property name enclosed in double quotes at line 1, column 2.",
        "field": "body",
    }


def test_a_json_body_that_is_not_an_object_names_the_body(client, owner: Persona) -> None:
    response = client.post("/api/keys", headers=owner.headers, json=["Production server"])
    assert (response.status_code, response.json["field"]) == (400, "body")


@pytest.mark.parametrize("incoming", ["abc-123", "0f8c6c2e-7a0e-4b8e-9e55-1f0b6b3f4a11", "svc.gateway:42"])
def test_a_sane_incoming_request_id_is_echoed(client, incoming: str) -> None:
    assert client.get("/health", headers={"X-Request-Id": incoming}).headers["X-Request-Id"] == incoming


@pytest.mark.parametrize("incoming", ["has spaces", "x" * 129, "<script>", "new\tline"])
def test_an_odd_incoming_request_id_is_replaced(client, incoming: str) -> None:
    echoed = client.get("/health", headers={"X-Request-Id": incoming}).headers["X-Request-Id"]
    assert echoed != incoming
    assert echoed.startswith("req_")


def test_errors_carry_request_ids_too(client) -> None:
    assert client.get("/api/keys").headers["X-Request-Id"].startswith("req_")


def test_a_literal_null_body_is_named_as_not_an_object(client, owner: Persona) -> None:
    json_type = {"Content-Type": "application/json"}
    response = client.post("/api/keys", data="null", headers=owner.headers | json_type)
    assert response.status_code == 400
    assert response.json["field"] == "body"


@pytest.mark.parametrize("field", ["name", "scopes", "allowedIps", "autoRotate"])
def test_updating_a_field_to_null_is_refused_rather_than_ignored(client, owner: Persona, field: str) -> None:
    response = client.patch(f"/api/keys/{owner.key_id}", json={field: None}, headers=owner.headers)
    assert response.status_code == 400
    assert response.json == {
        "error": "Bad Request",
        "message": f"{field} cannot be null; leave it out instead.",
        "field": field,
    }
