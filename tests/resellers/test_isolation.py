"""Three stories of who sees what: a sub-user, its parent and its sibling; two resellers. Ids that are not
yours answer 404, exactly like ids that do not exist."""

from __future__ import annotations

import pytest

from tests.fixtures.db import Persona
from tests.resellers.conftest import create_sub_user
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Api

QUICK = {"options": {"quickMode": True}}


def key_routes(key_id: int) -> list[tuple[str, str]]:
    return [
        ("get", f"/api/keys/{key_id}"),
        ("patch", f"/api/keys/{key_id}"),
        ("delete", f"/api/keys/{key_id}"),
        ("post", f"/api/keys/{key_id}/refresh"),
    ]


def test_a_sub_users_key_finds_nothing_of_its_parent_or_its_sibling(
    live_api: Api, reseller: Persona, receiver: Receiver
) -> None:
    customer = create_sub_user(live_api, reseller)
    sibling = create_sub_user(live_api, reseller)
    sibling_hook = live_api.call(
        "post", "/webhooks", sibling, json={"url": receiver.url(), "events": ["key.created"]}
    ).json()
    for owner in (reseller, sibling.persona):
        for method, path in key_routes(owner.key_id):
            response = live_api.call(method, path, customer, json={"name": "Taken over"})
            assert response.status_code == 404, (method, path, response.text)
    for method, path in [
        ("get", f"/webhooks/{sibling_hook['id']}"),
        ("delete", f"/webhooks/{sibling_hook['id']}"),
    ]:
        assert live_api.call(method, path, customer).status_code == 404
    # Nothing was changed by the attempts.
    assert live_api.call("get", f"/api/keys/{reseller.key_id}", reseller).json()["name"] == "Admin key"
    assert live_api.call("get", f"/webhooks/{sibling_hook['id']}", sibling).status_code == 200


def test_a_sub_user_cannot_read_its_siblings_or_parents_results(live_api: Api, reseller: Persona) -> None:
    customer = create_sub_user(live_api, reseller)
    sibling = create_sub_user(live_api, reseller)
    batch = live_api.call(
        "post",
        "/validate/batch",
        sibling,
        json={"emails": ["alice@mailbox.test"]},
        headers={"Prefer": "respond-async"},
    ).json()
    parent_batch = live_api.call(
        "post",
        "/validate/batch",
        reseller,
        json={"emails": ["bob@mailbox.test"]},
        headers={"Prefer": "respond-async"},
    ).json()

    for batch_id in (batch["batchId"], parent_batch["batchId"]):
        response = live_api.call("get", f"/batches/{batch_id}/results", customer)
        assert response.status_code == 404
    assert live_api.call("get", f"/batches/{batch['batchId']}/results", sibling).status_code == 200


def test_a_sub_users_usage_is_its_own(live_api: Api, reseller: Persona) -> None:
    customer = create_sub_user(live_api, reseller, tier="growth")
    sibling = create_sub_user(live_api, reseller, tier="growth")

    answered = live_api.call("post", "/validate", customer, json={"email": "alice@mailbox.test", **QUICK})

    assert answered.headers["X-RateLimit-Limit"] == "10"  # its own tier's per-minute limit, not the parent's
    assert live_api.call("get", "/api/usage", customer).json()["quota"]["used"] == 1
    assert live_api.call("get", "/api/usage", sibling).json()["quota"]["used"] == 0
    assert live_api.call("get", "/api/usage", reseller).json()["quota"]["used"] == 0


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("patch", "", {"name": "Taken over"}),
        ("delete", "", None),
        ("get", "/usage", None),
    ],
)
def test_a_reseller_cannot_see_another_resellers_sub_users(
    live_api: Api, reseller: Persona, other_reseller: Persona, method: str, suffix: str, body: object
) -> None:
    theirs = create_sub_user(live_api, other_reseller)

    response = live_api.call(method, f"/api/sub-users/{theirs.id}{suffix}", reseller, json=body)

    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "message": f"No sub-user with id {theirs.id}."}
    assert live_api.call("get", f"/api/sub-users/{theirs.id}", other_reseller).json()["name"] != "Taken over"
    assert live_api.call("get", "/api/usage", theirs).status_code == 200


def test_the_list_shows_only_your_own_sub_users(
    live_api: Api, reseller: Persona, other_reseller: Persona
) -> None:
    mine = create_sub_user(live_api, reseller)
    create_sub_user(live_api, other_reseller)

    listed = live_api.call("get", "/api/sub-users", reseller).json()["data"]

    assert [item["id"] for item in listed] == [mine.id]


def test_a_sub_users_key_on_reseller_routes_is_refused_for_its_plan_whatever_the_id(
    live_api: Api, reseller: Persona
) -> None:
    customer = create_sub_user(live_api, reseller)
    sibling = create_sub_user(live_api, reseller)

    for path in (
        f"/api/sub-users/{sibling.id}",
        f"/api/sub-users/{customer.id}",
        "/api/sub-users/sub_nothing",
    ):
        response = live_api.call("get", path, customer)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "PLAN_UPGRADE_REQUIRED"
