"""The audit log: one entry per security event, who/where/when/what, filterable and paginated."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from core import clock
from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from services import audit, audit_folding
from tests.fixtures.db import Persona, add_key

BROWSER = {"User-Agent": "audit-test/1.0"}


def entries(client, owner: Persona, query: str = "") -> list[dict[str, Any]]:
    response = client.get(f"/api/audit-log{query}", headers=owner.headers)
    assert response.status_code == 200, response.json
    data: list[dict[str, Any]] = response.json["data"]
    return data


def latest(client, owner: Persona, event: str) -> dict[str, Any]:
    return entries(client, owner, f"?type={event}")[0]


def test_key_creation_deletion_and_rotation_are_recorded_with_who_and_where(client, owner: Persona) -> None:
    headers = owner.headers | BROWSER
    new_id = client.post("/api/keys", headers=headers, json={"name": "Audited key"}).json["id"]
    client.post(f"/api/keys/{new_id}/refresh", headers=headers)
    client.delete(f"/api/keys/{new_id}", headers=headers)
    for event in ("key.created", "key.rotated", "key.deleted"):
        entry = latest(client, owner, event)
        assert (entry["keyId"], entry["ip"], entry["userAgent"]) == (
            owner.key_id,
            "127.0.0.1",
            "audit-test/1.0",
        )
        assert entry["details"]["keyId"] == new_id
        assert entry["occurredAt"].endswith("Z")


def test_failed_authentication_of_a_revoked_key_is_recorded(client, owner: Persona, member: Persona) -> None:
    client.delete(f"/api/keys/{member.key_id}", headers=owner.headers)
    rescuer_revoked = add_key(owner.account_id, "Will be revoked", ("validate:read",))
    client.post("/api/keys/revoke-all", headers=owner.headers)
    client.get("/api/keys", headers=rescuer_revoked.headers | BROWSER)
    auditor = add_key(owner.account_id, "Auditor key", ("*:*",))
    entry = latest(client, auditor, "auth.failed")
    assert (entry["keyId"], entry["details"], entry["userAgent"]) == (
        rescuer_revoked.key_id,
        {"reason": "key inactive", "folded": 0},
        "audit-test/1.0",
    )


def test_scope_violation_is_recorded_with_the_scope_needed(client, owner: Persona, member: Persona) -> None:
    client.get("/api/keys", headers=member.headers)
    entry = latest(client, owner, "auth.scope_denied")
    assert (entry["keyId"], entry["details"]) == (member.key_id, {"requiredScope": "keys:write", "folded": 0})


def test_ip_allowlist_rejection_is_recorded_with_the_client_ip(client, owner: Persona) -> None:
    fenced = add_key(owner.account_id, "Office only", ("*:*",), allowed_ips=("203.0.113.0/24",))
    client.get("/api/keys", headers=fenced.headers)
    entry = latest(client, owner, "auth.ip_denied")
    assert (entry["keyId"], entry["details"]) == (fenced.key_id, {"clientIp": "127.0.0.1", "folded": 0})


def test_emergency_revocation_is_recorded_with_the_count(client, owner: Persona, member: Persona) -> None:
    client.post("/api/keys/revoke-all", headers=owner.headers)
    auditor = add_key(owner.account_id, "Auditor key", ("*:*",))
    entry = latest(client, auditor, "keys.revoked_all")
    assert (entry["keyId"], entry["details"]) == (owner.key_id, {"revokedCount": 2})
    deactivated = entries(client, auditor, "?type=key.deactivated")
    assert sorted(e["details"]["keyId"] for e in deactivated) == sorted([owner.key_id, member.key_id])


def test_rate_limit_violations_recorded_through_the_hook_are_listed(client, owner: Persona) -> None:
    origin = audit.Origin(ip="198.51.100.7", user_agent="burst/1")
    audit.record(
        AuditEvent.RATE_LIMITED,
        account_id=owner.account_id,
        key_id=owner.key_id,
        origin=origin,
        details={"limit": 10, "window": "minute"},
    )
    entry = latest(client, owner, "rate_limit.exceeded")
    assert (entry["ip"], entry["details"]) == ("198.51.100.7", {"limit": 10, "window": "minute"})


def test_filters_combine_types_and_a_time_window(client, owner: Persona, frozen_clock) -> None:
    client.post("/api/keys", headers=owner.headers, json={"name": "Old key one"})
    clock.move(timedelta(days=2))
    boundary = clock.now().isoformat().replace("+00:00", "Z")
    created_id = client.post("/api/keys", headers=owner.headers, json={"name": "New key two"}).json["id"]
    client.post(f"/api/keys/{created_id}/refresh", headers=owner.headers)
    recent = entries(client, owner, f"?type=key.created,key.rotated&since={boundary}")
    assert [(e["type"], e["details"]["keyId"]) for e in recent] == [
        ("key.rotated", created_id),
        ("key.created", created_id),
    ]
    older = entries(client, owner, f"?type=key.created&until={boundary}")
    assert [e["details"].get("name") for e in older] == ["Old key one", "Admin key"]


def test_pages_follow_the_cursor_without_gaps_or_repeats(client, owner: Persona) -> None:
    for number in range(4):  # with the admin key's creation: 5 entries, pages of 2, 2 and 1
        client.post("/api/keys", headers=owner.headers, json={"name": f"Paged key {number}"})
        client.delete(f"/api/keys/{owner.key_id + 100000}", headers=owner.headers)  # 404s leave no entry
    seen: list[int] = []
    cursor = ""
    while True:
        page = client.get(f"/api/audit-log?limit=2{cursor}", headers=owner.headers).json
        seen += [entry["id"] for entry in page["data"]]
        if not page["hasMore"]:
            assert page["nextCursor"] is None
            break
        cursor = f"&startingAfter={page['nextCursor']}"
    assert len(set(seen)) == 5
    assert seen == sorted(seen, reverse=True)


def test_invalid_filters_are_named_in_a_400(client, owner: Persona) -> None:
    for query, field in (
        ("?type=key.exploded", "type[0]"),
        ("?since=yesterday", "since"),
        ("?since=2026-01-01T00:00:00", "since"),
        ("?limit=1000", "limit"),
        ("?page=2", "page"),
    ):
        response = client.get(f"/api/audit-log{query}", headers=owner.headers)
        assert (response.status_code, response.json["field"]) == (400, field), query


def test_audit_entries_hold_no_secret(client, owner: Persona) -> None:
    created = client.post("/api/keys", headers=owner.headers, json={"name": "Secretive key"}).json
    refreshed = client.post(f"/api/keys/{created['id']}/refresh", headers=owner.headers).json
    text = str(entries(client, owner))
    assert created["secretKey"] not in text
    assert refreshed["key"]["secretKey"] not in text


def unknown_key_entries(ip: str) -> list[tuple[int | None, int | None, dict[str, Any]]]:
    """The operators' view: failures that name no account, from one source address."""
    with transaction() as session:
        stmt = select(AuditEntry).where(AuditEntry.event == "auth.failed", AuditEntry.ip == ip)
        return [(row.account_id, row.key_id, row.details) for row in session.scalars(stmt)]


def test_a_flood_of_unknown_keys_is_recorded_once_per_source_ip_and_minute(client) -> None:
    flooder, other = f"203.0.113.{secrets.randbelow(250) + 1}", f"2001:db8::{secrets.token_hex(2)}"
    for _ in range(20):
        made_up = {"X-API-Key": f"sk_live_{secrets.token_urlsafe(32)}"}
        response = client.get("/api/keys", headers=made_up, environ_base={"REMOTE_ADDR": flooder})
        assert response.json["error"]["code"] == "INVALID_API_KEY"
    client.get("/api/keys", headers={"X-API-Key": "sk_live_nope"}, environ_base={"REMOTE_ADDR": other})

    audit_folding.fold_counts()
    assert unknown_key_entries(flooder) == [(None, None, {"reason": "unknown key", "folded": 19})]
    assert unknown_key_entries(other) == [(None, None, {"reason": "unknown key", "folded": 0})]


def test_uses_of_a_revoked_key_are_folded_per_source_ip_and_minute_with_a_count(
    client, owner: Persona
) -> None:
    client.post("/api/keys/revoke-all", headers=owner.headers)
    for _ in range(30):
        assert client.get("/api/keys", headers=owner.headers).status_code == 401
    client.get("/api/keys", headers=owner.headers, environ_base={"REMOTE_ADDR": "198.51.100.20"})
    audit_folding.fold_counts()
    auditor = add_key(owner.account_id, "Auditor key", ("*:*",))
    failed = entries(client, auditor, "?type=auth.failed")
    assert sorted((item["ip"], item["details"]["folded"]) for item in failed) == [
        ("127.0.0.1", 29),
        ("198.51.100.20", 0),
    ]


@pytest.mark.parametrize(
    ("event", "key_scopes", "allowed_ips", "path"),
    [
        ("auth.ip_denied", ("*:*",), ("198.51.100.0/24",), "/api/usage"),
        ("auth.scope_denied", ("validate:read",), (), "/api/keys"),
    ],
)
def test_denials_of_a_known_key_are_folded_per_key_type_and_ip(
    client, owner: Persona, event: str, key_scopes: tuple[str, ...], allowed_ips: tuple[str, ...], path: str
) -> None:
    denied = add_key(owner.account_id, "Denied key", key_scopes, allowed_ips=allowed_ips)
    for _ in range(50):
        assert client.get(path, headers=denied.headers).status_code == 403
    audit_folding.fold_counts()
    audit_folding.fold_counts()  # twice: counting is idempotent, not cumulative
    [entry] = entries(client, owner, f"?type={event}")
    assert (entry["keyId"], entry["details"]["folded"]) == (denied.key_id, 49)
