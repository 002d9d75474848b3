"""``keys:write`` creates and rotates keys (spec 5.3) without becoming more: only an admin (``*:*``) key
grants ``*:*``, ``keys:write`` or a reseller scope, or manages another key that holds one; reseller scopes
exist only on Enterprise Plus."""

from __future__ import annotations

import pytest

from models.accounts import Tier
from tests.fixtures.db import add_key, open_persona

POWERFUL = ("*:*", "keys:write", "resellers:read", "resellers:write")


@pytest.mark.parametrize("scope", POWERFUL)
def test_a_key_writer_cannot_mint_a_key_with_a_powerful_scope(client, scope: str) -> None:
    writer = add_key(open_persona(Tier.ENTERPRISE_PLUS).account_id, "Key writer", ("keys:write",))

    response = client.post("/api/keys", headers=writer.headers, json={"name": "Escalated", "scopes": [scope]})

    assert response.status_code == 403
    assert response.json["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
    assert scope in response.json["error"]["message"]


def test_a_key_writer_mints_ordinary_keys_and_rotates_itself(client) -> None:
    writer = add_key(open_persona(Tier.ENTERPRISE_PLUS).account_id, "Key writer", ("keys:write",))

    created = client.post(
        "/api/keys", headers=writer.headers, json={"name": "Validator", "scopes": ["bulk:*"]}
    )
    refreshed = client.post(f"/api/keys/{writer.key_id}/refresh", headers=writer.headers)

    assert created.status_code == 201, created.json
    assert refreshed.status_code == 200, refreshed.json


def test_a_key_writer_cannot_give_itself_reseller_powers(client) -> None:
    writer = add_key(open_persona(Tier.ENTERPRISE_PLUS).account_id, "Key writer", ("keys:write",))

    response = client.patch(
        f"/api/keys/{writer.key_id}",
        headers=writer.headers,
        json={"scopes": ["keys:write", "resellers:write"]},
    )

    assert response.status_code == 403
    assert client.get(f"/api/keys/{writer.key_id}", headers=writer.headers).json["scopes"] == ["keys:write"]


def test_a_key_writer_cannot_rotate_another_powerful_key_and_read_its_secret(client) -> None:
    account_id = open_persona(Tier.ENTERPRISE_PLUS).account_id
    writer = add_key(account_id, "Key writer", ("keys:write",))
    reseller_key = add_key(account_id, "Reseller admin", ("resellers:write",))

    response = client.post(f"/api/keys/{reseller_key.key_id}/refresh", headers=writer.headers)

    assert response.status_code == 403
    assert "secretKey" not in response.get_data(as_text=True)


def test_an_admin_grants_reseller_scopes_on_enterprise_plus_only(client) -> None:
    reseller, pro = open_persona(Tier.ENTERPRISE_PLUS), open_persona(Tier.PRO)
    body = {"name": "Sub-user manager", "scopes": ["resellers:write"]}

    granted = client.post("/api/keys", headers=reseller.headers, json=body)
    refused = client.post("/api/keys", headers=pro.headers, json=body)

    assert granted.status_code == 201, granted.json
    assert refused.status_code == 403
    assert refused.json["error"]["code"] == "PLAN_UPGRADE_REQUIRED"
