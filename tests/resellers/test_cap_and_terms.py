"""The operator's terms for a reseller: ``flask --app web resellers set`` caps its sub-users and sets its
commission rate; beyond the cap, creating a sub-user is a coded 403 naming the limit."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from services.errors import InvalidField, NotFound
from services.resellers import terms
from services.resellers.errors import PlanUpgradeRequired
from settings import get_settings
from tests.fixtures.db import Persona, open_persona
from tests.resellers.conftest import create_sub_user, resellers_cli, set_terms
from tests.workers.harness import Api


def test_beyond_the_cap_a_sub_user_is_refused_with_the_limit(live_api: Api, reseller: Persona) -> None:
    assert set_terms(reseller, "--max-sub-users", "2") == {
        "accountId": reseller.account_id,
        "maxSubUsers": 2,
        "commissionRate": 20.0,
    }
    first = create_sub_user(live_api, reseller)
    create_sub_user(live_api, reseller)

    refused = live_api.call(
        "post",
        "/api/sub-users",
        reseller,
        json={"email": "third@example.com", "name": "Third", "tier": "pro"},
    )

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "SUB_USER_LIMIT_REACHED"
    assert refused.json()["error"]["limit"] == 2
    assert "2" in refused.json()["error"]["message"]
    assert len(live_api.call("get", "/api/sub-users", reseller).json()["data"]) == 2
    # A deleted sub-user frees its slot; suspended ones keep theirs.
    live_api.call("delete", f"/api/sub-users/{first.id}", reseller)
    third = create_sub_user(live_api, reseller)
    live_api.call("patch", f"/api/sub-users/{third.id}", reseller, json={"status": "suspended"})
    assert (
        live_api.call(
            "post",
            "/api/sub-users",
            reseller,
            json={"email": "fourth@example.com", "name": "Fourth", "tier": "pro"},
        ).status_code
        == 403
    )


def test_unlimited_lifts_the_cap_and_the_rate_is_kept(live_api: Api, reseller: Persona) -> None:
    set_terms(reseller, "--max-sub-users", "0", "--commission-rate", "12.5")
    assert (
        live_api.call(
            "post", "/api/sub-users", reseller, json={"email": "a@example.com", "name": "A", "tier": "pro"}
        ).status_code
        == 403
    )

    printed = set_terms(reseller, "--max-sub-users", "unlimited")

    assert printed == {"accountId": reseller.account_id, "maxSubUsers": "unlimited", "commissionRate": 12.5}
    for _ in range(3):
        create_sub_user(live_api, reseller)
    assert live_api.call("get", "/api/commissions", reseller).json()["commissionRate"] == 12.5


def test_the_cli_refuses_what_is_not_a_cap_and_accounts_that_are_not_resellers(reseller: Persona) -> None:
    not_a_number = resellers_cli("set", "--account", str(reseller.account_id), "--max-sub-users", "lots")
    assert not_a_number.returncode != 0
    assert "unlimited" in not_a_number.stderr
    business = open_persona()
    not_reseller = resellers_cli("set", "--account", str(business.account_id), "--max-sub-users", "3")
    assert not_reseller.returncode != 0
    assert "Enterprise Plus" in not_reseller.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_sub_users": -1}, "0 or more"),
        ({"commission_rate": Decimal("100.01")}, "from 0 to 100"),
        ({"commission_rate": Decimal("12.345")}, "two decimals"),
        ({"commission_rate": Decimal("NaN")}, "from 0 to 100"),
    ],
)
def test_terms_out_of_range_are_refused(reseller: Persona, options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidField, match=message):
        terms.set_terms(reseller.account_id, **options)


def test_terms_of_accounts_that_are_not_resellers_are_refused(database_url: str) -> None:
    with pytest.raises(PlanUpgradeRequired):
        terms.set_terms(open_persona().account_id, max_sub_users=3)
    with pytest.raises(NotFound):
        terms.set_terms(999_999_999, max_sub_users=3)


def test_a_reseller_nobody_set_terms_for_has_a_finite_cap(
    live_api: Api, reseller: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESELLER_MAX_SUB_USERS", "1")
    get_settings.cache_clear()
    try:
        create_sub_user(live_api, reseller)
        body = {"email": "second@example.com", "name": "Second", "tier": "pro"}
        refused = live_api.call("post", "/api/sub-users", reseller, json=body)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "SUB_USER_LIMIT_REACHED"
    assert refused.json()["error"]["limit"] == 1
    assert get_settings().reseller_max_sub_users == 25  # the default is a number, not unlimited
