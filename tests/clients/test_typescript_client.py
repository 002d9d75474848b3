"""The TypeScript client (clients/typescript, built by bin/setup) against the running service in test mode:
node runs tests/clients/typescript_run.mjs, which calls the built package as a developer would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from verimail.webhooks import compute_signature

from tests.browser.helpers import NOT_AN_ADDRESS
from tests.clients.helpers import list_file, page_token, sandbox_key
from tests.workers.harness import Gunicorn

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "clients/typescript/dist/index.js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def signed_delivery(folder: Path) -> dict[str, str]:
    """A delivery signed the way the service signs one (its sender uses this very function)."""
    body = json.dumps({"id": "evt_ts", "type": "batch.completed", "created": 1, "data": {}}).encode()
    (folder / "hook.json").write_bytes(body)
    timestamp, secret = str(int(time.time())), "whsec_typescript"
    return {
        "HOOK_BODY_PATH": str(folder / "hook.json"),
        "HOOK_TIMESTAMP": timestamp,
        "HOOK_SIGNATURE": compute_signature(secret, timestamp, body),
        "HOOK_SECRET": secret,
    }


def token_env(service: Gunicorn) -> dict[str, str]:
    form, page = page_token(service)
    return {"FORM_KEY": form.secret, "TOKEN": page["token"], "TOKEN_EMAIL": NOT_AN_ADDRESS}


def test_the_typescript_client_validates_uploads_downloads_confirms_tokens_and_verifies_webhooks(
    service: Gunicorn, tmp_path: Path
) -> None:
    assert BUILT.exists(), "run bin/setup (npm ci && npm run build in clients/typescript)"
    key, path = sandbox_key(), list_file(tmp_path, 40)
    env = os.environ | signed_delivery(tmp_path) | token_env(service)
    env |= {"VERIMAIL_API_KEY": key.secret, "VERIMAIL_BASE_URL": service.base_url}
    env |= {"LIST_PATH": str(path), "OUT_PATH": str(tmp_path / "out.csv")}

    ran = subprocess.run(
        ["node", str(ROOT / "tests/clients/typescript_run.mjs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )

    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert report["single"] == {"isValid": True, "severity": "valid", "livemode": False}
    assert report["batch"] == [["deliverable@example.com", True], ["undeliverable@example.com", False]]
    upload = report["upload"]
    size = path.stat().st_size
    assert (upload["status"], upload["total"]) == ("completed", 40)
    assert (upload["progress"][0], upload["progress"][-1]) == ([0, size], [size, size])
    assert upload["written"] == (tmp_path / "out.csv").stat().st_size > 0
    assert (tmp_path / "out.csv").read_text().splitlines()[0].endswith("result_duplicateOf")
    assert report["badKey"] == {"family": "AuthenticationError", "status": 401, "code": "INVALID_API_KEY"}
    assert report["emptyBatch"] == {"family": "InvalidRequestError", "status": 400, "code": "BATCH_EMPTY"}
    assert report["token"] == {
        "confirmed": True,
        "verdict": "invalid",
        "replay": [409, "TOKEN_ALREADY_CONFIRMED"],
    }
    assert report["webhook"] == {
        "type": "batch.completed",
        "id": "evt_ts",
        "altered": "SignatureVerificationError",
    }
