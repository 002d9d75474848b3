"""A sub-user's whole life as its reseller drives it over HTTP: create, use, list, read, change, suspend,
reactivate, read its usage, delete; and the bodies a reseller gets wrong."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.fixtures.db import Persona
from tests.resellers.conftest import create_sub_user
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Api

QUICK = {"options": {"quickMode": True}}


def test_a_created_sub_user_is_an_account_of_its_own_with_a_working_key(
    live_api: Api, reseller: Persona
) -> None:
    response = live_api.call(
        "post",
        "/api/sub-users",
        reseller,
        json={"email": "Ops@Customer.Example", "name": "Customer Ltd", "tier": "growth"},
    )

    assert response.status_code == 201
    body = response.json()
    assert body["id"].startswith("sub_")
    assert (body["email"], body["name"], body["tier"], body["status"]) == (
        "ops@customer.example",
        "Customer Ltd",
        "growth",
        "active",
    )
    assert datetime.fromisoformat(body["createdAt"])
    assert body["secretKey"].startswith("sk_live_")
    assert body["publishableKey"].startswith("pk_live_")
    own = {"X-API-Key": body["secretKey"]}
    usage = live_api.call("get", "/api/usage", headers=own).json()
    assert (usage["plan"]["tier"], usage["quota"]["limit"], usage["rateLimit"]["limitPerMinute"]) == (
        "growth",
        5000,
        10,
    )
    keys = live_api.call("get", "/api/keys", headers=own).json()["data"]
    assert [(key["scopes"], key["publishableKey"]) for key in keys] == [(["*:*"], body["publishableKey"])]
    reseller_keys = live_api.call("get", "/api/keys", reseller).json()["data"]
    assert [key["id"] for key in reseller_keys] == [reseller.key_id]  # isolated keys
    # Shown once: reading the sub-user back never shows a secret.
    read = live_api.call("get", f"/api/sub-users/{body['id']}", reseller).json()
    assert "secretKey" not in read
    assert read["id"] == body["id"]


def test_the_list_pages_through_live_sub_users_oldest_first(live_api: Api, reseller: Persona) -> None:
    created = [create_sub_user(live_api, reseller).id for _ in range(5)]

    first = live_api.call("get", "/api/sub-users?limit=2", reseller).json()
    second = live_api.call(
        "get", f"/api/sub-users?limit=2&startingAfter={first['nextCursor']}", reseller
    ).json()
    third = live_api.call(
        "get", f"/api/sub-users?limit=2&startingAfter={second['nextCursor']}", reseller
    ).json()

    assert [item["id"] for item in first["data"] + second["data"] + third["data"]] == created
    assert (first["hasMore"], second["hasMore"], third["hasMore"]) == (True, True, False)
    assert third["nextCursor"] is None


def test_rename_and_change_tier_apply_to_the_sub_users_own_limits(live_api: Api, reseller: Persona) -> None:
    customer = create_sub_user(live_api, reseller, tier="growth")

    response = live_api.call(
        "patch", f"/api/sub-users/{customer.id}", reseller, json={"name": "Renamed", "tier": "business"}
    )

    assert response.status_code == 200
    assert (response.json()["name"], response.json()["tier"]) == ("Renamed", "business")
    usage = live_api.call("get", "/api/usage", customer).json()
    assert (usage["plan"]["tier"], usage["quota"]["limit"], usage["rateLimit"]["limitPerMinute"]) == (
        "business",
        40000,
        93,
    )


def test_a_suspended_sub_users_keys_answer_401_until_it_is_reactivated(
    live_api: Api, reseller: Persona
) -> None:
    customer = create_sub_user(live_api, reseller)

    suspended = live_api.call(
        "patch", f"/api/sub-users/{customer.id}", reseller, json={"status": "suspended"}
    )
    refused = live_api.call("post", "/validate", customer, json={"email": "alice@mailbox.test", **QUICK})
    reactivated = live_api.call("patch", f"/api/sub-users/{customer.id}", reseller, json={"status": "active"})
    served = live_api.call("post", "/validate", customer, json={"email": "alice@mailbox.test", **QUICK})

    assert suspended.json()["status"] == "suspended"
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "INVALID_API_KEY"
    assert reactivated.json()["status"] == "active"
    assert served.status_code == 200
    assert served.json()["email"] == "alice@mailbox.test"


def test_the_reseller_reads_a_sub_users_usage_as_the_sub_user_does(live_api: Api, reseller: Persona) -> None:
    customer = create_sub_user(live_api, reseller, tier="scale")
    live_api.call("post", "/validate", customer, json={"email": "alice@mailbox.test", **QUICK})

    own = live_api.call("get", "/api/usage", customer).json()
    seen = live_api.call("get", f"/api/sub-users/{customer.id}/usage", reseller).json()

    assert (
        seen.keys()
        == own.keys()
        == {
            "period",
            "quota",
            "rateLimit",
            "recentErrors",
            "plan",
            "monitoredLists",
            "livemode",
        }
    )
    assert seen["quota"] == own["quota"]
    assert seen["quota"]["used"] == 1
    assert seen["plan"] == own["plan"]
    assert seen["plan"]["tier"] == "scale"
    assert seen["period"]["start"] == own["period"]["start"]
    # The reseller's own quota was not touched by its customer's validation.
    assert live_api.call("get", "/api/usage", reseller).json()["quota"]["used"] == 0


def test_a_deleted_sub_users_keys_stop_at_once_and_it_is_gone_from_the_api(
    live_api: Api, reseller: Persona
) -> None:
    customer = create_sub_user(live_api, reseller)
    assert live_api.call("get", "/api/usage", customer).status_code == 200

    deleted = live_api.call("delete", f"/api/sub-users/{customer.id}", reseller)

    assert deleted.status_code == 200
    assert deleted.json() == {"id": customer.id, "deleted": True}
    after = live_api.call("get", "/api/usage", customer)
    assert after.status_code == 401
    assert after.json()["error"]["code"] == "INVALID_API_KEY"
    assert live_api.call("get", f"/api/sub-users/{customer.id}", reseller).status_code == 404
    assert customer.id not in [
        item["id"] for item in live_api.call("get", "/api/sub-users", reseller).json()["data"]
    ]
    assert live_api.call("delete", f"/api/sub-users/{customer.id}", reseller).status_code == 404


def test_each_sub_user_has_its_own_webhooks_and_audit_log(
    live_api: Api, reseller: Persona, receiver: Receiver
) -> None:
    customer = create_sub_user(live_api, reseller)
    endpoint = {"url": receiver.url(), "events": ["batch.completed"]}
    assert live_api.call("post", "/webhooks", customer, json=endpoint).status_code == 201

    own_hooks = live_api.call("get", "/webhooks", customer).json()["data"]
    reseller_hooks = live_api.call("get", "/webhooks", reseller).json()["data"]
    own_log = live_api.call("get", "/api/audit-log", customer).json()["data"]
    reseller_log = live_api.call("get", "/api/audit-log", reseller).json()["data"]

    assert [hook["url"] for hook in own_hooks] == [endpoint["url"]]
    assert reseller_hooks == []
    assert [entry["type"] for entry in own_log] == ["key.created"]
    assert "sub_user.created" in [entry["type"] for entry in reseller_log]
    assert all(entry["details"].get("subUserId") != customer.id for entry in own_log)


def test_a_second_sub_user_with_the_same_email_is_a_409(live_api: Api, reseller: Persona) -> None:
    first = create_sub_user(live_api, reseller, email="twice@example.com")
    again = live_api.call(
        "post",
        "/api/sub-users",
        reseller,
        json={"email": "TWICE@example.com", "name": "Again", "tier": "pro"},
    )

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "EMAIL_TAKEN"
    assert again.json()["error"]["field"] == "email"
    # Deleting the first frees the email.
    live_api.call("delete", f"/api/sub-users/{first.id}", reseller)
    assert create_sub_user(live_api, reseller, email="twice@example.com").id != first.id


def test_another_reseller_may_have_a_sub_user_with_the_same_email(
    live_api: Api, reseller: Persona, other_reseller: Persona
) -> None:
    create_sub_user(live_api, reseller, email="shared@example.com")
    assert (
        create_sub_user(live_api, other_reseller, email="shared@example.com").body["email"]
        == "shared@example.com"
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "No email", "tier": "pro"}, "email"),
        ({"email": "not-an-address", "name": "Bad email", "tier": "pro"}, "email"),
        ({"email": "a@example.com", "tier": "pro"}, "name"),
        ({"email": "a@example.com", "name": "  ", "tier": "pro"}, "name"),
        ({"email": "a@example.com", "name": "Resells", "tier": "enterprise_plus"}, "tier"),
        ({"email": "a@example.com", "name": "Unknown", "tier": "platinum"}, "tier"),
        ({"email": "a@example.com", "name": "No tier"}, "tier"),
        ({"email": "a@example.com", "name": "Extra", "tier": "pro", "parent": 1}, "parent"),
        ({"email": 7, "name": "Number", "tier": "pro"}, "email"),
    ],
)
def test_bad_sub_user_bodies_are_400_naming_the_field(live_api: Api, reseller: Persona, body, field) -> None:
    response = live_api.call("post", "/api/sub-users", reseller, json=body)

    assert response.status_code == 400
    assert response.json()["error"] == "Bad Request"
    assert response.json()["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "body"),
        ({"status": "paused"}, "status"),
        ({"tier": "enterprise_plus"}, "tier"),
        ({"name": None}, "name"),
    ],
)
def test_bad_updates_are_400_naming_the_field(live_api: Api, reseller: Persona, body, field) -> None:
    customer = create_sub_user(live_api, reseller)

    response = live_api.call("patch", f"/api/sub-users/{customer.id}", reseller, json=body)

    assert response.status_code == 400
    assert response.json()["field"] == field
