"""Small leaks and gaps closed: what a publishable key's 403 shows, the scope of a bulk job's results URL,
and a key past its deactivation date refused even when the rotation sweeper has not run."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from core import clock
from models import ApiKey
from models import session as db_session
from models.audit import AuditEntry
from tests.fixtures.db import Persona, add_key


def test_a_publishable_keys_ip_refusal_does_not_show_the_allowlist(client, owner: Persona) -> None:
    fenced = add_key(owner.account_id, "Office only", ("*:*",), allowed_ips=("198.51.100.0/24",))
    response = client.get(
        "/api/usage", headers={"X-API-Key": fenced.publishable}, environ_base={"REMOTE_ADDR": "203.0.113.9"}
    )
    assert response.status_code == 403
    error = response.json["error"]
    assert (error["code"], error["clientIp"]) == ("IP_NOT_ALLOWED", "203.0.113.9")
    assert "allowedIps" not in error
    assert "198.51.100" not in response.get_data(as_text=True)
    secret = client.get("/api/usage", headers=fenced.headers, environ_base={"REMOTE_ADDR": "203.0.113.9"})
    assert secret.json["error"]["allowedIps"] == ["198.51.100.0/24"]  # the owner's own key is told


def test_a_publishable_keys_scope_refusal_does_not_show_the_scopes(client, owner: Persona) -> None:
    response = client.get("/api/keys", headers={"X-API-Key": owner.publishable})
    assert response.status_code == 403
    error = response.json["error"]
    assert (error["code"], error["requiredScope"]) == ("INSUFFICIENT_PERMISSIONS", "keys:write")
    assert "grantedScopes" not in error
    assert "*:*" not in response.get_data(as_text=True)
    narrow = add_key(owner.account_id, "Reader only", ("validate:read",))
    secret = client.get("/api/keys", headers=narrow.headers)
    assert secret.json["error"]["grantedScopes"] == ["validate:read"]


def test_a_bulk_jobs_results_need_the_bulk_scope(client, owner: Persona) -> None:
    uploaded = client.post(
        "/bulk/jobs?quickMode=true",
        data=b"email\nann@example.com\n",
        headers=owner.headers | {"Content-Type": "text/csv"},
    )
    assert uploaded.status_code == 202, uploaded.json
    results = f"/batches/{uploaded.json['id']}/results"
    reader = add_key(owner.account_id, "Results reader", ("validate:read",))
    refused = client.get(results, headers=reader.headers)
    assert refused.status_code == 403
    assert refused.json["error"]["requiredScope"] == "bulk:*"
    bulk_only = add_key(owner.account_id, "Bulk uploader", ("bulk:*",))
    assert client.get(results, headers=bulk_only.headers).status_code == 200
    assert client.get(results, headers=owner.headers).status_code == 200


def test_a_batchs_results_still_need_validate_read_only(client, owner: Persona) -> None:
    batch = client.post(
        "/validate/batch",
        json={"emails": ["ann@example.com"], "options": {"quickMode": True}},
        headers=owner.headers | {"Prefer": "respond-async"},
    )
    assert batch.status_code == 202, batch.json
    reader = add_key(owner.account_id, "Results reader", ("validate:read",))
    assert client.get(f"/batches/{batch.json['batchId']}/results", headers=reader.headers).status_code == 200
    bulk_only = add_key(owner.account_id, "Bulk uploader", ("bulk:*",))
    assert (
        client.get(f"/batches/{batch.json['batchId']}/results", headers=bulk_only.headers).status_code == 403
    )


def test_a_key_past_day_97_is_refused_even_if_the_sweeper_never_ran(
    frozen_clock: None, client, owner: Persona
) -> None:
    clock.move(timedelta(days=97) - timedelta(seconds=1))
    assert client.get("/api/keys", headers=owner.headers).status_code == 200
    clock.move(timedelta(seconds=1))
    response = client.get("/api/keys", headers=owner.headers)
    assert (response.status_code, response.json["error"]["code"]) == (401, "INVALID_API_KEY")
    with db_session.transaction() as session:
        assert session.get_one(ApiKey, owner.key_id).status == "active"  # nothing swept: the door checks
        reasons = session.scalars(
            select(AuditEntry.details["reason"].astext).where(AuditEntry.key_id == owner.key_id)
        ).all()
    assert "key expired" in reasons
