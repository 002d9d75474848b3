"""Who may call the Enterprise Plus routes: only keys of an Enterprise Plus account, by X-API-Key or as a
bearer token; every other plan is told its plan is the reason, on every route of the tier."""

from __future__ import annotations

import pytest

from models.accounts import Tier
from tests.fixtures.db import Persona, add_key, open_persona
from tests.web.routes import RESELLER_PREFIXES, ROUTES
from tests.workers.harness import Api

RESELLER_ROUTES = [(method, path) for method, path, _ in ROUTES if path.startswith(RESELLER_PREFIXES)]
LOWER_TIERS = [tier for tier in Tier if tier is not Tier.ENTERPRISE_PLUS]


def test_every_route_of_the_tier_is_listed() -> None:
    assert len(RESELLER_ROUTES) == 14


@pytest.mark.parametrize("tier", LOWER_TIERS)
def test_other_plans_are_refused_on_every_route_with_their_plan_as_the_reason(
    live_api: Api, tier: Tier
) -> None:
    admin = open_persona(tier)
    for method, path in RESELLER_ROUTES:
        response = live_api.call(
            method, path, admin, json={"email": "a@example.com", "name": "A", "tier": "pro"}
        )
        assert response.status_code == 403, (method, path)
        error = response.json()["error"]
        assert (error["code"], error["tier"], error["requiredTier"]) == (
            "PLAN_UPGRADE_REQUIRED",
            tier.value,
            "enterprise_plus",
        )
        assert "Enterprise Plus" in error["message"]


def test_another_plans_key_without_the_scope_still_hears_about_the_plan(live_api: Api) -> None:
    validator = add_key(open_persona(Tier.ENTERPRISE).account_id, "Validator only", ("validate:write",))

    response = live_api.call("get", "/api/commissions", validator)

    assert response.json()["error"]["code"] == "PLAN_UPGRADE_REQUIRED"


def test_a_bearer_token_and_an_x_api_key_both_work(live_api: Api, reseller: Persona) -> None:
    bearer = {"Authorization": f"Bearer {reseller.secret}"}

    assert live_api.call("get", "/api/commissions", headers=bearer).status_code == 200
    assert live_api.call("get", "/api/commissions", reseller).status_code == 200
    created = live_api.call(
        "post", "/api/sub-users", headers=bearer, json={"email": "b@example.com", "name": "B", "tier": "pro"}
    )
    assert created.status_code == 201


def test_an_enterprise_plus_key_without_the_scope_gets_insufficient_permissions(
    live_api: Api, reseller: Persona
) -> None:
    reader = add_key(reseller.account_id, "Reseller reader", ("resellers:read",))
    validator = add_key(reseller.account_id, "Validator only", ("validate:write",))

    assert live_api.call("get", "/api/sub-users", reader).status_code == 200
    refused = live_api.call(
        "post", "/api/sub-users", reader, json={"email": "c@example.com", "name": "C", "tier": "pro"}
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
    assert refused.json()["error"]["requiredScope"] == "resellers:write"
    for method, path in RESELLER_ROUTES:
        response = live_api.call(method, path, validator, json={})
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"


def test_a_publishable_key_of_a_reseller_is_refused(live_api: Api, reseller: Persona) -> None:
    response = live_api.call("get", "/api/commissions", headers={"X-API-Key": reseller.publishable})

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"


def test_no_key_and_a_bad_key_are_401_as_everywhere(live_api: Api) -> None:
    assert live_api.call("get", "/api/sub-users").json()["error"]["code"] == "MISSING_API_KEY"
    bad = live_api.call("get", "/api/sub-users", headers={"Authorization": "Bearer sk_live_nope"})
    assert bad.status_code == 401
    assert bad.json()["error"]["code"] == "INVALID_API_KEY"
