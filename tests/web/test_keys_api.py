"""Key management through the API: create, list, read, update, delete, refresh, revoke-all."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from core import clock
from core.times import iso
from models import ApiKey
from models.accounts import Tier
from models.session import transaction
from tests.fixtures.db import Persona, add_key, open_persona


def create(client, persona: Persona, **body):
    return client.post("/api/keys", headers=persona.headers, json={"name": "Production server", **body})


def test_created_key_shows_its_secret_once_and_works_at_once(client, owner: Persona) -> None:
    response = create(client, owner, scopes=["keys:write"], allowedIps=["127.0.0.1"])
    assert response.status_code == 201
    body = response.json
    assert body["secretKey"].startswith("sk_live_")
    assert body["publishableKey"].startswith("pk_live_")
    assert (body["name"], body["scopes"], body["allowedIps"], body["status"]) == (
        "Production server",
        ["keys:write"],
        ["127.0.0.1"],
        "active",
    )
    assert body["secretKeyHint"] == "sk_live_..." + body["secretKey"][-4:]
    listed = client.get("/api/keys", headers={"X-API-Key": body["secretKey"]}).json["data"]
    assert body["secretKey"] not in str(listed)
    assert [key["id"] for key in listed] == [owner.key_id, body["id"]]
    assert all("secretKey" not in key for key in listed)


def test_a_key_created_without_scopes_may_only_validate(client, owner: Persona) -> None:
    assert create(client, owner).json["scopes"] == ["validate:read", "validate:write"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": "abcd"}, "name", "name must be 5 to 100 characters"),
        ({"name": "  abcd \n"}, "name", "name must be 5 to 100 characters (whitespace around it is trimmed)"),
        ({"name": "x" * 101}, "name", "name must be 5 to 100 characters"),
        ({"name": "Good name", "scopes": ["keys:read"]}, "scopes[0]", "Unknown scope 'keys:read'"),
        ({"name": "Good name", "scopes": []}, "scopes", "scopes: List should have at least 1 item"),
        ({"name": "Good name", "allowedIps": ["10.0.0.300"]}, "allowedIps[0]", "'10.0.0.300' is not an IPv4"),
        ({"name": "Good name", "allowedIps": ["10.0.0.7/24"]}, "allowedIps[0]", "did you mean 10.0.0.0/24?"),
        (
            {"name": "Good name", "autoRotate": "yes"},
            "autoRotate",
            "autoRotate: Input should be a valid boolean",
        ),
        ({"name": "Good name", "colour": "red"}, "colour", "colour: Extra inputs are not permitted"),
        ({}, "name", "name: Field required"),
    ],
)
def test_invalid_key_fields_are_named_in_a_400(client, owner: Persona, body, field, message) -> None:
    response = client.post("/api/keys", headers=owner.headers, json=body)
    assert response.status_code == 400
    assert response.json["error"] == "Bad Request"
    assert response.json["field"] == field
    assert message in response.json["message"]


def test_tier_key_limit_is_enforced_with_a_clear_error(client) -> None:
    growth = open_persona(Tier.GROWTH)  # 2 keys: the admin key and one more
    assert create(client, growth).status_code == 201
    response = create(client, growth)
    assert response.status_code == 403
    assert response.json["error"] == {
        "code": "KEY_LIMIT_REACHED",
        "message": "The Growth plan allows 2 active keys; delete or revoke one, or upgrade.",
        "limit": 2,
        "tier": "growth",
    }


def test_enterprise_plus_has_no_key_limit(client) -> None:
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    assert all(create(client, reseller).status_code == 201 for _ in range(25))


def test_refresh_invalidates_old_secret_at_once_and_keeps_publishable_key(client, owner: Persona) -> None:
    response = client.post(f"/api/keys/{owner.key_id}/refresh", headers=owner.headers)
    assert response.status_code == 200
    body = response.json
    assert (body["success"], body["key"]["id"], body["key"]["publishableKey"]) == (
        True,
        owner.key_id,
        owner.publishable,
    )
    assert body["key"]["secretKey"] != owner.secret
    assert body["warning"]
    assert body["message"]
    assert client.get("/api/keys", headers=owner.headers).json["error"]["code"] == "INVALID_API_KEY"
    assert client.get("/api/keys", headers={"X-API-Key": body["key"]["secretKey"]}).status_code == 200


def test_revoke_all_deactivates_every_key_of_the_account_only(
    client, owner: Persona, member: Persona, outsider: Persona
) -> None:
    response = client.post("/api/keys/revoke-all", headers=owner.headers)
    assert response.status_code == 200
    assert response.json["success"] is True
    assert response.json["revokedCount"] == 2
    assert response.json["warning"]
    for persona in (owner, member):
        assert client.get("/api/keys", headers=persona.headers).status_code == 401
    assert client.get("/api/keys", headers=outsider.headers).status_code == 200
    with transaction() as session:
        live = select(ApiKey.status).where(ApiKey.account_id == owner.account_id, ApiKey.livemode.is_(True))
        assert set(session.scalars(live)) == {"inactive"}  # test-mode keys are revoked by a test key


def test_a_deactivated_key_cannot_be_refreshed_back_to_life(client, owner: Persona, member: Persona) -> None:
    client.post("/api/keys/revoke-all", headers=owner.headers)
    rescuer = add_key(owner.account_id, "Recovery admin", ("*:*",))
    response = client.post(f"/api/keys/{member.key_id}/refresh", headers=rescuer.headers)
    assert response.status_code == 409
    assert response.json["error"]["code"] == "KEY_INACTIVE"


def test_update_changes_name_scopes_and_allowlist(client, owner: Persona, member: Persona) -> None:
    response = client.patch(
        f"/api/keys/{member.key_id}",
        headers=owner.headers,
        json={"name": "Renamed member", "scopes": ["analytics:read"], "allowedIps": ["::1"]},
    )
    assert response.status_code == 200
    assert (response.json["name"], response.json["scopes"], response.json["allowedIps"]) == (
        "Renamed member",
        ["analytics:read"],
        ["::1"],
    )
    assert client.get(f"/api/keys/{member.key_id}", headers=owner.headers).json["name"] == "Renamed member"


def test_update_with_nothing_to_change_is_a_400(client, owner: Persona) -> None:
    response = client.patch(f"/api/keys/{owner.key_id}", headers=owner.headers, json={})
    assert response.status_code == 400
    assert response.json["field"] == "body"


def test_deleted_key_stops_working_and_disappears(client, owner: Persona, member: Persona) -> None:
    response = client.delete(f"/api/keys/{member.key_id}", headers=owner.headers)
    assert response.status_code == 200
    assert response.json == {"id": member.key_id, "deleted": True, "livemode": True}
    assert client.get("/api/keys", headers=member.headers).status_code == 401
    assert client.get(f"/api/keys/{member.key_id}", headers=owner.headers).status_code == 404


def test_keys_write_cannot_grant_or_take_over_admin_keys(client, owner: Persona) -> None:
    manager = add_key(owner.account_id, "Key manager", ("keys:write",))
    attempts = [
        client.post("/api/keys", headers=manager.headers, json={"name": "Escalated", "scopes": ["*:*"]}),
        client.post(f"/api/keys/{owner.key_id}/refresh", headers=manager.headers),
        client.patch(f"/api/keys/{owner.key_id}", headers=manager.headers, json={"name": "Hijacked"}),
        client.delete(f"/api/keys/{owner.key_id}", headers=manager.headers),
    ]
    for response in attempts:
        assert response.status_code == 403
        assert response.json["error"]["requiredScope"] == "*:*"
    assert client.get("/api/keys", headers=owner.headers).status_code == 200


def test_keys_write_may_manage_ordinary_keys(client, owner: Persona, member: Persona) -> None:
    manager = add_key(owner.account_id, "Key manager", ("keys:write",))
    assert client.post(f"/api/keys/{member.key_id}/refresh", headers=manager.headers).status_code == 200
    assert create(client, manager, scopes=["bulk:*"]).status_code == 201


def test_last_used_at_says_when_a_key_last_called_to_the_minute(client, owner: Persona, frozen_clock) -> None:
    worker = add_key(owner.account_id, "Nightly import job", ("validate:read",))

    def last_used() -> str | None:
        value: str | None = client.get(f"/api/keys/{worker.key_id}", headers=owner.headers).json["lastUsedAt"]
        return value

    assert last_used() is None
    # Early in a minute (+30 s stays in it), and near now: keys stop at day 97 of their secret's life.
    start = clock.now().replace(second=5, microsecond=0) + timedelta(minutes=1)
    clock.freeze(start)
    client.get("/api/usage", headers=worker.headers)  # refused (no analytics:read): the key still called
    first = last_used()
    assert first == iso(start)
    updated = client.get(f"/api/keys/{worker.key_id}", headers=owner.headers).json["updatedAt"]
    clock.move(timedelta(seconds=30))
    client.get("/api/usage", headers=worker.headers)
    assert last_used() == first  # at most one write per key and minute
    clock.move(timedelta(minutes=2))
    client.get("/api/usage", headers=worker.headers)
    assert last_used() == iso(start + timedelta(minutes=2, seconds=30))
    assert client.get(f"/api/keys/{worker.key_id}", headers=owner.headers).json["updatedAt"] == updated
