"""POST /validate: quickMode in the web process, full checks through a worker, request metadata."""

from __future__ import annotations

from tests.fixtures.db import Persona, add_key
from tests.workers.harness import Api, Worker


def test_quick_mode_skips_smtp_and_reports_request_metadata(live_api: Api, owner: Persona) -> None:
    response = live_api.call(
        "post", "/validate", owner, json={"email": "Alice@Mailbox.test", "options": {"quickMode": True}}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["input"], body["email"]) == ("Alice@Mailbox.test", "alice@mailbox.test")  # spec 2.1
    assert body["checks"]["syntax"]["metadata"]["normalizedEmail"] == "alice@mailbox.test"
    assert body["checks"]["domain"]["passed"] is True
    assert not {"smtp", "catchAll"} & set(body["checks"])
    metadata = body["metadata"]
    assert metadata["ipAddress"] == "127.0.0.1"
    assert metadata["country"] is None  # loopback has no country
    assert isinstance(metadata["processingTime"], int)
    assert metadata["timestamp"].startswith("20")


def test_without_quick_mode_a_worker_probes_the_mailbox(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    deliverable = live_api.call("post", "/validate", owner, json={"email": "bob@mailbox.test"}).json()
    unknown = live_api.call("post", "/validate", owner, json={"email": "nobody@mailbox.test"}).json()

    assert deliverable["checks"]["smtp"]["passed"] is True
    assert deliverable["checks"]["catchAll"]["metadata"]["isCatchAll"] is False
    assert deliverable["severity"] == "valid"
    assert unknown["checks"]["smtp"]["passed"] is False
    assert unknown["isValid"] is False


def test_skip_catch_all_leaves_the_catch_all_check_out(live_api: Api, worker: Worker, owner: Persona) -> None:
    body = live_api.call(
        "post", "/validate", owner, json={"email": "bob@mailbox.test", "options": {"skipCatchAll": True}}
    ).json()

    assert "smtp" in body["checks"]
    assert "catchAll" not in body["checks"]


def test_an_invalid_address_still_answers_200(live_api: Api, owner: Persona) -> None:
    response = live_api.call(
        "post", "/validate", owner, json={"email": "no-at-sign", "options": {"quickMode": True}}
    )

    assert response.status_code == 200
    body = response.json()
    assert (body["isValid"], body["score"], body["severity"]) == (False, 0, "invalid")
    assert list(body["checks"]) == ["syntax"]


def test_a_key_without_validate_write_is_refused(live_api: Api, owner: Persona) -> None:
    reader = add_key(owner.account_id, "Results reader", ("validate:read",))

    response = live_api.call("post", "/validate", reader, json={"email": "bob@mailbox.test"})

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
    assert response.json()["error"]["requiredScope"] == "validate:write"
