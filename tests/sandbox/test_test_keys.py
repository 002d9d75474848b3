"""Test-mode keys: made by a live key, managed in their own mode, never able to mint a live key."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask.testing import FlaskClient

from core import clock
from tests.fixtures.db import add_key, open_twins
from tests.webhooks.receiver import Receiver


def test_a_live_key_creates_a_test_key_that_only_test_mode_lists(
    client: FlaskClient, database_url: str
) -> None:
    live, test = open_twins()

    created = client.post("/api/keys", json={"name": "CI sandbox", "livemode": False}, headers=live.headers)

    assert created.status_code == 201, created.json
    assert created.get_json()["secretKey"].startswith("sk_test_")
    assert (created.get_json()["publishableKey"][:8], created.get_json()["livemode"]) == ("pk_test_", False)
    test_ids = [key["id"] for key in client.get("/api/keys", headers=test.headers).get_json()["data"]]
    live_ids = [key["id"] for key in client.get("/api/keys", headers=live.headers).get_json()["data"]]
    assert created.get_json()["id"] in test_ids
    assert created.get_json()["id"] not in live_ids
    assert client.get(f"/api/keys/{created.get_json()['id']}", headers=live.headers).status_code == 404


def test_a_test_key_makes_test_keys_and_is_refused_a_live_one(client: FlaskClient, database_url: str) -> None:
    _, test = open_twins()

    made = client.post("/api/keys", json={"name": "Another sandbox"}, headers=test.headers)
    refused = client.post("/api/keys", json={"name": "Sneaky live", "livemode": True}, headers=test.headers)

    assert (made.status_code, made.get_json()["livemode"]) == (201, False)
    assert refused.status_code == 403
    assert refused.get_json()["error"] == {
        "code": "LIVE_MODE_REQUIRED",
        "message": "A live key can be created in live mode only: a test key never makes a live one. This "
        "request was made in test mode. Use a live key (sk_live_...), or switch the dashboard to live data.",
        "mode": "test",
        "requiredMode": "live",
    }


def test_revoke_all_with_a_test_key_leaves_the_live_keys_working(
    client: FlaskClient, database_url: str
) -> None:
    live, test = open_twins()

    revoked = client.post("/api/keys/revoke-all", headers=test.headers)

    assert revoked.get_json()["revokedCount"] == 1  # the test key itself
    assert client.get("/api/keys", headers=test.headers).status_code == 401
    assert client.get("/api/keys", headers=live.headers).status_code == 200


def test_a_test_keys_audit_entries_are_in_the_test_mode_trail_only(
    client: FlaskClient, database_url: str
) -> None:
    live, test = open_twins()
    made = client.post("/api/keys", json={"name": "Sandbox two"}, headers=test.headers).get_json()

    def created_ids(headers: dict[str, str]) -> list[int]:
        entries = client.get("/api/audit-log?type=key.created", headers=headers).get_json()["data"]
        return [entry["details"]["keyId"] for entry in entries]

    assert made["id"] in created_ids(test.headers)
    assert made["id"] not in created_ids(live.headers)
    assert test.key_id not in created_ids(live.headers)


def test_each_modes_audit_log_page_and_entries_say_livemode(client: FlaskClient, database_url: str) -> None:
    live, test = open_twins()
    for persona in (live, test):
        assert client.post("/api/keys", json={"name": "Another"}, headers=persona.headers).status_code == 201

    for persona, livemode in ((live, True), (test, False)):
        page = client.get("/api/audit-log", headers=persona.headers).get_json()
        assert page["livemode"] is livemode
        assert page["data"]
        assert {entry["livemode"] for entry in page["data"]} == {livemode}


def test_a_pk_test_pages_verdict_token_confirms_with_a_test_key_only(
    client: FlaskClient, database_url: str
) -> None:
    live, test = open_twins()
    page = "http://127.0.0.2:8040"
    form = add_key(
        live.account_id, "Sandbox form", ("validate:write",), allowed_origins=(page,), livemode=False
    )
    answer = client.post(
        "/validate/browser",
        json={"email": "not-an-address"},
        headers={"X-API-Key": form.publishable, "Origin": page},
    )
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["livemode"] is False
    token = answer.get_json()["token"]

    by_live = client.post(
        "/validate/confirm", json={"token": token, "email": "not-an-address"}, headers=live.headers
    )
    by_test = client.post(
        "/validate/confirm", json={"token": token, "email": "not-an-address"}, headers=test.headers
    )

    assert form.publishable.startswith("pk_test_")
    assert by_live.get_json()["error"]["code"] == "TOKEN_OF_ANOTHER_ACCOUNT"
    assert by_test.status_code == 200, by_test.get_json()
    assert by_test.get_json()["livemode"] is False


def test_a_test_key_outlives_the_90_day_rotation_that_stops_a_live_key(
    client: FlaskClient, database_url: str, frozen_clock: None
) -> None:
    live, test = open_twins()

    clock.move(timedelta(days=100))

    assert client.get("/api/keys", headers=live.headers).status_code == 401  # day 97 ended it
    assert client.get("/api/keys", headers=test.headers).status_code == 200


def test_a_test_keys_refusal_is_audited_in_the_test_mode_trail(
    client: FlaskClient, database_url: str
) -> None:
    live, test = open_twins()
    narrow = add_key(live.account_id, "Sandbox reader", ("validate:read",), livemode=False)

    assert client.get("/api/keys", headers=narrow.headers).status_code == 403

    def denied_keys(headers: dict[str, str]) -> list[int]:
        entries = client.get("/api/audit-log?type=auth.scope_denied", headers=headers).get_json()["data"]
        return [entry["keyId"] for entry in entries]

    assert denied_keys(test.headers) == [narrow.key_id]
    assert denied_keys(live.headers) == []


@pytest.mark.parametrize("livemode", [True, False], ids=["live", "test"])
def test_answers_about_keys_webhooks_and_lists_say_the_callers_mode(
    client: FlaskClient, receiver: Receiver, livemode: bool
) -> None:
    live, test = open_twins()
    headers = (live if livemode else test).headers
    spare = client.post("/api/keys", json={"name": "Spare"}, headers=headers).get_json()["id"]
    hooks = {"url": receiver.url(), "events": ["quota.reset"]}
    endpoint = client.post("/webhooks", json=hooks, headers=headers).get_json()["id"]
    csv = {**headers, "Content-Type": "text/csv"}

    answers = {
        "key list": client.get("/api/keys", headers=headers),
        "refresh": client.post(f"/api/keys/{spare}/refresh", headers=headers),
        "key deleted": client.delete(f"/api/keys/{spare}", headers=headers),
        "endpoint list": client.get("/webhooks", headers=headers),
        "delivery log": client.get(f"/webhooks/{endpoint}/deliveries", headers=headers),
        "endpoint deleted": client.delete(f"/webhooks/{endpoint}", headers=headers),
        "dry run": client.post("/bulk/jobs?dryRun=true", data=b"email\nfree@example.com\n", headers=csv),
        "revoke-all": client.post("/api/keys/revoke-all", headers=headers),
    }

    shown = {
        name: (answer.status_code, answer.get_json().get("livemode")) for name, answer in answers.items()
    }
    assert shown == dict.fromkeys(answers, (200, livemode))
