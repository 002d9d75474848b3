"""Supplying a key: header, bearer, query (development only); missing, unknown and revoked keys."""

from __future__ import annotations

from tests.fixtures.db import Persona, create_test_app


def test_request_without_a_key_is_refused_with_missing_api_key(client) -> None:
    response = client.get("/api/keys")
    assert response.status_code == 401
    assert response.json["error"]["code"] == "MISSING_API_KEY"
    assert "X-API-Key" in response.json["error"]["message"]


def test_x_api_key_header_authenticates(client, owner: Persona) -> None:
    assert client.get("/api/keys", headers={"X-API-Key": owner.secret}).status_code == 200


def test_bearer_authorization_authenticates(client, owner: Persona) -> None:
    assert client.get("/api/keys", headers={"Authorization": f"Bearer {owner.secret}"}).status_code == 200


def test_authorization_without_bearer_scheme_is_an_invalid_key(client, owner: Persona) -> None:
    response = client.get("/api/keys", headers={"Authorization": f"Basic {owner.secret}"})
    assert response.status_code == 401
    assert response.json["error"] == {
        "code": "INVALID_API_KEY",
        "message": "The Authorization header must read 'Bearer <API_KEY>'.",
    }


def test_unknown_secret_key_is_refused_with_invalid_api_key(client, owner: Persona) -> None:
    response = client.get("/api/keys", headers={"X-API-Key": owner.secret[:-2] + "xx"})
    assert response.status_code == 401
    assert response.json["error"]["code"] == "INVALID_API_KEY"


def test_a_key_without_a_known_prefix_is_refused(client) -> None:
    response = client.get("/api/keys", headers={"X-API-Key": "not-a-key"})
    assert response.status_code == 401
    assert response.json["error"]["code"] == "INVALID_API_KEY"


def test_query_parameter_key_works_in_development(client, owner: Persona) -> None:
    assert client.get(f"/api/keys?api_key={owner.secret}").status_code == 200


def test_query_parameter_key_is_refused_in_production_with_the_reason(owner: Persona) -> None:
    client = create_test_app(app_env="production").test_client()
    response = client.get(f"/api/keys?api_key={owner.secret}")
    assert response.status_code == 401
    error: dict[str, str] = response.get_json()["error"]
    assert error["code"] == "QUERY_API_KEY_NOT_ALLOWED"
    assert "X-API-Key header" in error["message"]
    assert client.get("/api/keys", headers=owner.headers).status_code == 200


def test_revoked_key_is_refused_with_invalid_api_key(client, owner: Persona) -> None:
    assert client.post("/api/keys/revoke-all", headers=owner.headers).status_code == 200
    response = client.get("/api/keys", headers=owner.headers)
    assert response.status_code == 401
    assert response.json["error"]["code"] == "INVALID_API_KEY"


def test_publishable_key_authenticates_but_cannot_manage_keys(client, owner: Persona) -> None:
    """It is read-only: no create, rotate, revoke; none of the foundation's routes opt in for it."""
    headers = {"X-API-Key": owner.publishable}
    for method, path in (
        ("post", "/api/keys"),
        ("post", f"/api/keys/{owner.key_id}/refresh"),
        ("post", "/api/keys/revoke-all"),
        ("get", "/api/keys"),
        ("get", "/api/audit-log"),
    ):
        response = client.open(path, method=method, headers=headers, json={"name": "from the browser"})
        assert response.status_code == 403, path
        assert response.json["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
        assert "Publishable keys are read-only" in response.json["error"]["message"]
    assert client.get("/api/keys", headers=owner.headers).json["data"][0]["status"] == "active"
