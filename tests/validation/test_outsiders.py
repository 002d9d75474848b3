"""Another account's batch does not exist for you (404), whatever key you hold."""

from __future__ import annotations

from tests.fixtures.db import Persona, add_key
from tests.workers.harness import Api, Worker


def test_results_of_another_accounts_batch_are_not_found(
    live_api: Api, worker: Worker, owner: Persona, outsider: Persona
) -> None:
    batch_id = live_api.call(
        "post", "/validate/batch", owner, json={"emails": ["a@mailbox.test"], "options": {"quickMode": True}}
    ).json()["batchId"]

    mine = live_api.call("get", f"/batches/{batch_id}/results", owner)
    theirs = live_api.call("get", f"/batches/{batch_id}/results", outsider)
    unknown = live_api.call("get", "/batches/bat_000000000000000000000000/results", owner)

    assert mine.status_code == 200
    assert theirs.status_code == 404
    assert unknown.status_code == 404
    assert theirs.json() == {**unknown.json(), "message": theirs.json()["message"]}


def test_a_member_with_validate_read_sees_the_accounts_batches(
    live_api: Api, worker: Worker, owner: Persona, member: Persona
) -> None:
    batch_id = live_api.call(
        "post", "/validate/batch", owner, json={"emails": ["a@mailbox.test"], "options": {"quickMode": True}}
    ).json()["batchId"]

    assert live_api.call("get", f"/batches/{batch_id}/results", member).status_code == 200


def test_a_key_without_validate_read_cannot_read_results(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    writer = add_key(owner.account_id, "Write only key", ("validate:write",))
    batch_id = live_api.call(
        "post", "/validate/batch", writer, json={"emails": ["a@mailbox.test"], "options": {"quickMode": True}}
    ).json()["batchId"]

    response = live_api.call("get", f"/batches/{batch_id}/results", writer)

    assert response.status_code == 403
    assert response.json()["error"]["requiredScope"] == "validate:read"
