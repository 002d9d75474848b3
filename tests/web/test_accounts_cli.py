"""``flask --app web accounts ...`` as an operator runs it: a subprocess printing one JSON object."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def flask(*args: str) -> subprocess.CompletedProcess[str]:
    flask_bin = Path(sys.executable).with_name("flask")
    return subprocess.run(
        [str(flask_bin), "--app", "web", "accounts", *args],
        check=False,
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_create_prints_one_json_object_with_a_working_admin_key(database_url, client) -> None:
    result = flask("create", "--email", "Founder@Example.com", "--tier", "pro", "--name", "Founder Inc")
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert set(printed) == {
        "accountId",
        "tier",
        "secretKey",
        "publishableKey",
        "testSecretKey",
        "testPublishableKey",
    }
    assert printed["tier"] == "pro"
    assert printed["secretKey"].startswith("sk_live_")
    assert printed["publishableKey"].startswith("pk_live_")
    keys = client.get("/api/keys", headers={"X-API-Key": printed["secretKey"]}).json["data"]
    assert [(key["scopes"], key["publishableKey"]) for key in keys] == [(["*:*"], printed["publishableKey"])]


def test_create_also_prints_a_working_test_mode_key_pair(database_url, client) -> None:
    printed = json.loads(flask("create", "--email", "tester@example.com", "--tier", "pro").stdout)

    assert printed["testSecretKey"].startswith("sk_test_")
    assert printed["testPublishableKey"].startswith("pk_test_")
    keys = client.get("/api/keys", headers={"X-API-Key": printed["testSecretKey"]}).json["data"]
    assert [(key["livemode"], key["publishableKey"]) for key in keys] == [
        (False, printed["testPublishableKey"])
    ]
    assert keys[0]["secretKeyHint"].startswith("sk_test_...")


def test_create_refuses_an_unknown_tier_and_a_bad_email(database_url) -> None:
    bad_tier = flask("create", "--email", "a@example.com", "--tier", "platinum")
    assert bad_tier.returncode != 0
    assert "platinum" in bad_tier.stderr
    bad_email = flask("create", "--email", "not-an-address", "--tier", "growth")
    assert bad_email.returncode != 0
    assert "--email" in bad_email.stderr


def test_issue_key_lets_an_account_back_in_after_revoke_all(database_url, client) -> None:
    opened = json.loads(flask("create", "--email", "b@example.com", "--tier", "growth").stdout)
    client.post("/api/keys/revoke-all", headers={"X-API-Key": opened["secretKey"]})
    result = flask("issue-key", "--account-id", str(opened["accountId"]))
    assert result.returncode == 0, result.stderr
    issued = json.loads(result.stdout)
    assert client.get("/api/keys", headers={"X-API-Key": issued["secretKey"]}).status_code == 200
