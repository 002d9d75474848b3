"""Another account's keys do not exist for you: every key route answers 404 and changes nothing."""

from __future__ import annotations

import pytest

from tests.fixtures.db import Persona


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PATCH", "", {"name": "Taken over"}),
        ("DELETE", "", None),
        ("POST", "/refresh", None),
    ],
)
def test_another_accounts_key_id_answers_404(
    client, owner: Persona, outsider: Persona, method, suffix, body
) -> None:
    response = client.open(
        f"/api/keys/{owner.key_id}{suffix}", method=method, headers=outsider.headers, json=body
    )
    assert response.status_code == 404
    assert response.json == {"error": "Not Found", "message": f"No API key with id {owner.key_id}."}
    assert client.get(f"/api/keys/{owner.key_id}", headers=owner.headers).json["name"] == "Admin key"
    assert client.get("/api/keys", headers=owner.headers).status_code == 200


def test_listing_shows_only_your_own_keys(client, owner: Persona, outsider: Persona) -> None:
    listed = client.get("/api/keys", headers=outsider.headers).json["data"]
    assert [key["id"] for key in listed] == [outsider.key_id]


def test_revoke_all_by_an_outsider_leaves_your_keys_alone(client, owner: Persona, outsider: Persona) -> None:
    assert client.post("/api/keys/revoke-all", headers=outsider.headers).json["revokedCount"] == 1
    assert client.get("/api/keys", headers=owner.headers).status_code == 200


def test_audit_log_shows_only_your_own_entries(client, owner: Persona, outsider: Persona) -> None:
    client.post("/api/keys", headers=owner.headers, json={"name": "Owner's new key"})
    entries = client.get("/api/audit-log", headers=outsider.headers).json["data"]
    assert [(entry["type"], entry["details"]["keyId"]) for entry in entries] == [
        ("key.created", outsider.key_id)
    ]


def test_creating_a_key_as_an_outsider_puts_it_in_the_outsiders_account(client, owner, outsider) -> None:
    created = client.post("/api/keys", headers=outsider.headers, json={"name": "Outsider key"}).json
    assert created["id"] not in [
        key["id"] for key in client.get("/api/keys", headers=owner.headers).json["data"]
    ]
