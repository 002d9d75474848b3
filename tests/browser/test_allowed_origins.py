"""Allowed origins on the API: stored as browsers send them, refused when they are not exact origins,
changed by PATCH, and every change in the audit log with the new list."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.db import Persona


def audit_entry(client, owner: Persona, event: str) -> dict[str, Any]:
    response = client.get(f"/api/audit-log?type={event}", headers=owner.headers)
    assert response.status_code == 200, response.json
    latest: dict[str, Any] = response.json["data"][0]
    return latest


def test_origins_are_stored_as_a_browser_writes_them_once_each(client, owner: Persona) -> None:
    written = [
        "HTTPS://Shop.Example.com/",
        "https://shop.example.com:443",
        "http://localhost:3000",
        "http://127.0.0.2:80",
    ]

    created = client.post(
        "/api/keys", headers=owner.headers, json={"name": "Sign-up form", "allowedOrigins": written}
    )

    assert created.status_code == 201, created.json
    stored = ["https://shop.example.com", "http://localhost:3000", "http://127.0.0.2"]
    assert created.json["allowedOrigins"] == stored
    assert (
        client.get(f"/api/keys/{created.json['id']}", headers=owner.headers).json["allowedOrigins"] == stored
    )
    assert audit_entry(client, owner, "key.created")["details"]["allowedOrigins"] == stored


def test_a_key_made_without_origins_serves_no_page(client, owner: Persona) -> None:
    created = client.post("/api/keys", headers=owner.headers, json={"name": "Server only"})

    assert created.json["allowedOrigins"] == []


@pytest.mark.parametrize(
    "origin",
    [
        "https://*.example.com",
        "*",
        "https://example.com/sign-up",
        "https://example.com?from=ad",
        "https://user@example.com",
        "example.com",
        "ftp://example.com",
        "https://example.com:99999",
        "null",
    ],
)
def test_what_is_not_an_exact_origin_is_refused_naming_the_entry(client, owner: Persona, origin: str) -> None:
    response = client.post(
        "/api/keys",
        headers=owner.headers,
        json={"name": "Sign-up form", "allowedOrigins": ["https://ok.example.com", origin]},
    )

    assert response.status_code == 400
    assert response.json["field"] == "allowedOrigins[1]"
    assert "no path and no wildcard" in response.json["message"]


def test_changing_the_origins_is_audited_with_the_new_list(client, owner: Persona) -> None:
    key_id = client.post("/api/keys", headers=owner.headers, json={"name": "Sign-up form"}).json["id"]

    changed = client.patch(
        f"/api/keys/{key_id}", headers=owner.headers, json={"allowedOrigins": ["https://app.example.com"]}
    )
    cleared = client.patch(f"/api/keys/{key_id}", headers=owner.headers, json={"allowedOrigins": []})

    assert changed.status_code == 200, changed.json
    assert changed.json["allowedOrigins"] == ["https://app.example.com"]
    assert cleared.json["allowedOrigins"] == []
    entry = audit_entry(client, owner, "key.updated")
    assert entry["details"]["fields"] == ["allowed_origins"]
    assert entry["details"]["allowedOrigins"] == []
    assert entry["keyId"] == owner.key_id


def test_an_outsider_cannot_change_the_origins_of_someone_elses_key(
    client, owner: Persona, outsider: Persona
) -> None:
    key_id = client.post("/api/keys", headers=owner.headers, json={"name": "Sign-up form"}).json["id"]

    response = client.patch(
        f"/api/keys/{key_id}", headers=outsider.headers, json={"allowedOrigins": ["https://evil.example"]}
    )

    assert response.status_code == 404
    assert client.get(f"/api/keys/{key_id}", headers=owner.headers).json["allowedOrigins"] == []
