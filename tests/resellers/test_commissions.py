"""The commission report of a month, checked to the cent: sub-users of several tiers, one joining
mid-month, one over its quota, one deleted mid-month; then the month closes and never changes again.

Each test lives in its own month of the past (the service clock is frozen there), so the accounts other
tests create at real time never have a month to close in it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy import select

from core import clock
from models.accounts import Tier
from models.resellers import CommissionReport
from models.session import transaction
from scheduler.schedule import beat_schedule
from tasks.resellers import close_commission_months
from tests.fixtures.db import Persona, open_persona
from tests.resellers.conftest import Customer, create_sub_user, set_terms
from tests.workers.harness import Api
from workers.celery_app import app as celery_app

QUICK = {"options": {"quickMode": True}}
PRICES = {"growth": 19, "pro": 49, "business": 149, "scale": 399}
VOLUMES = {"growth": 5000, "pro": 10000, "business": 40000, "scale": 125000}


def at(day: int, hour: int = 9, month: int = 3, year: int = 2021) -> None:
    clock.freeze(datetime(year, month, day, hour, tzinfo=UTC))


def validate(live_api: Api, customer: Customer, count: int) -> None:
    for index in range(count):
        body = {"email": f"user{index}@mailbox.test", **QUICK}
        assert live_api.call("post", "/validate", customer, json=body).status_code == 200


def cents(amount: Decimal) -> Decimal:
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def expected_revenue(tier: str, days: int, overage: int = 0, month_days: int = 31) -> Decimal:
    """The rule, written out independently: price x days / days in month + overage x price / volume."""
    price = Decimal(PRICES[tier])
    return cents(price * days / month_days + Decimal(overage) * price / VOLUMES[tier])


def commission(revenue: Decimal, rate: str) -> Decimal:
    return cents(revenue * Decimal(rate) / 100)


def report(live_api: Api, reseller: Persona, period: str | None = None) -> dict[str, Any]:
    response = live_api.call("get", "/api/commissions" + (f"?period={period}" if period else ""), reseller)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_month_with_a_mid_month_join_an_overage_and_a_deletion_to_the_cent(
    live_api: Api, frozen: None
) -> None:
    at(1, 8)
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    set_terms(reseller, "--commission-rate", "17.5")
    full = create_sub_user(live_api, reseller, tier="growth", email="full@example.com")
    over = create_sub_user(live_api, reseller, tier="growth", email="over@example.com")
    leaves = create_sub_user(live_api, reseller, tier="scale", email="leaves@example.com")
    create_sub_user(live_api, open_persona(Tier.ENTERPRISE_PLUS), tier="pro")  # someone else's customer
    validate(live_api, full, 1)
    batch = live_api.call(
        "post",
        "/validate/batch",
        full,
        json={"emails": ["alice@mailbox.test", "bob@mailbox.test"], **QUICK},
        headers={"Prefer": "respond-async"},
    )
    assert batch.status_code == 202  # charged for 2 at once, whenever the workers get to it
    upload = live_api.call(
        "post",
        "/bulk/jobs?quickMode=true",
        over,
        data="email\n" + "".join(f"x{n}@nodata.test\n" for n in range(5300)),  # distinct: charged each
        headers={"Content-Type": "text/csv"},
    )
    assert upload.status_code == 202, upload.text
    live_api.call("post", f"/bulk/jobs/{upload.json()['id']}/cancel", over)  # charged already; no work needed
    at(16)
    joins = create_sub_user(live_api, reseller, tier="pro", email="joins@example.com")
    validate(live_api, joins, 1)
    at(21, 12)
    validate(live_api, leaves, 2)
    assert live_api.call("delete", f"/api/sub-users/{leaves.id}", reseller).status_code == 200

    live = report(live_api, reseller)

    rows = {
        full.id: ("full@example.com", 3, expected_revenue("growth", 31)),
        over.id: ("over@example.com", 5300, expected_revenue("growth", 31, overage=300)),
        leaves.id: ("leaves@example.com", 2, expected_revenue("scale", 21)),
        joins.id: ("joins@example.com", 1, expected_revenue("pro", 16)),
    }
    assert [row[2] for row in rows.values()] == [
        Decimal("19.00"),
        Decimal("20.14"),
        Decimal("270.29"),
        Decimal("25.29"),
    ]
    expected = [
        {
            "id": sub_id,
            "email": email,
            "requests": requests,
            "revenue": float(revenue),
            "commission": float(commission(revenue, "17.5")),
        }
        for sub_id, (email, requests, revenue) in rows.items()
    ]
    assert [row["commission"] for row in expected] == [3.33, 3.52, 47.30, 4.43]  # half-up: 3.325 -> 3.33
    assert live["period"] == "2021-03"
    assert live["subUsers"] == expected
    assert live["commissionRate"] == 17.5
    assert live["totalRevenue"] == 334.72
    assert live["commissionEarned"] == 58.58
    assert live["totalRevenue"] == float(sum(Decimal(str(row["revenue"])) for row in live["subUsers"]))
    assert live["commissionEarned"] == float(sum(Decimal(str(row["commission"])) for row in live["subUsers"]))
    assert (live["closed"], live["closedAt"], live["currency"]) == (False, None, "usd")

    # Ten minutes into April the month is still open (charges in flight may land); then it closes.
    at(1, 0, month=4)
    clock.move(timedelta(minutes=5))
    assert report(live_api, reseller, "2021-03")["closed"] is False
    clock.move(timedelta(minutes=15))
    closed = report(live_api, reseller, "2021-03")
    assert closed["closed"] is True
    assert {**closed, "closed": False, "closedAt": None} == live


def test_a_closed_month_never_changes(live_api: Api, frozen: None) -> None:
    at(3, month=5)
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    kept = create_sub_user(live_api, reseller, tier="business")
    dropped = create_sub_user(live_api, reseller, tier="pro")
    validate(live_api, kept, 2)
    at(1, 1, month=6)
    closed = report(live_api, reseller, "2021-05")
    assert closed["closed"] is True

    # June: more usage, a tier change, a deletion, a new customer and a new commission rate.
    validate(live_api, kept, 3)
    live_api.call("patch", f"/api/sub-users/{kept.id}", reseller, json={"tier": "scale"})
    live_api.call("delete", f"/api/sub-users/{dropped.id}", reseller)
    create_sub_user(live_api, reseller, tier="growth")
    set_terms(reseller, "--commission-rate", "30")

    assert report(live_api, reseller, "2021-05") == closed
    june = report(live_api, reseller)
    assert (june["period"], june["closed"], june["commissionRate"]) == ("2021-06", False, 30.0)
    assert len(june["subUsers"]) == 3  # the one deleted in June still earned its June day


def test_beat_closes_each_ended_month_once(live_api: Api, frozen: None) -> None:
    at(10, month=8)
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    customer = create_sub_user(live_api, reseller, tier="pro")
    validate(live_api, customer, 1)
    at(2, month=10)

    closed_now = close_commission_months()
    again = close_commission_months()

    assert closed_now >= 2  # August and September for this reseller (and any other reseller's due months)
    assert again == 0
    with transaction() as session:
        periods = session.scalars(
            select(CommissionReport.period)
            .where(CommissionReport.reseller_id == reseller.account_id)
            .order_by(CommissionReport.period)
        ).all()
    assert periods == ["2021-08", "2021-09"]
    august = report(live_api, reseller, "2021-08")
    assert august["closed"] is True
    assert august["subUsers"][0]["requests"] == 1
    assert august["totalRevenue"] == float(expected_revenue("pro", 22))  # the 10th to the 31st
    september = report(live_api, reseller, "2021-09")
    assert (september["totalRevenue"], september["subUsers"][0]["requests"]) == (49.0, 0)
    entry = beat_schedule()[close_commission_months.name]
    assert (entry["task"], entry["schedule"]) == ("tasks.resellers.close_commission_months", 3600.0)
    assert close_commission_months.name in celery_app.tasks


def test_periods_are_checked(live_api: Api, reseller: Persona) -> None:
    for period in ("2021-13", "21-03", "2021-3", "march", "1999-12"):
        response = live_api.call("get", f"/api/commissions?period={period}", reseller)
        assert response.status_code == 400, period
        assert response.json()["field"] == "period"
    # a month that has not begun has no report yet: a 404, so any well-formed period is never a 400
    future = live_api.call("get", "/api/commissions?period=2999-01", reseller)
    assert future.status_code == 404
    assert "not begun" in future.json()["message"]


def test_a_month_before_any_sub_user_is_empty(live_api: Api, reseller: Persona) -> None:
    body = report(live_api, reseller, "2020-01")

    assert body == {
        "period": "2020-01",
        "totalRevenue": 0.0,
        "commissionRate": 20.0,
        "commissionEarned": 0.0,
        "subUsers": [],
        "currency": "usd",
        "closed": True,
        "closedAt": body["closedAt"],
    }
    with transaction() as session:
        stored = select(CommissionReport.total_revenue_cents).where(
            CommissionReport.reseller_id == reseller.account_id, CommissionReport.period == "2020-01"
        )
        assert session.scalars(stored).all() == [0]


def test_a_tier_change_bills_each_tier_for_its_days(live_api: Api, frozen: None) -> None:
    at(1, 8, month=11)
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    customer = create_sub_user(live_api, reseller, tier="growth")
    at(11, 15, month=11)
    live_api.call("patch", f"/api/sub-users/{customer.id}", reseller, json={"tier": "scale"})

    [row] = report(live_api, reseller)["subUsers"]

    # November has 30 days: the 1st-10th on Growth, the 11th (the change's day) onwards on Scale.
    expected = cents(Decimal(19) * 10 / 30 + Decimal(399) * 20 / 30)
    assert row["revenue"] == float(expected) == 272.33


def test_a_switch_down_at_23_59_bills_the_day_at_the_tier_held_during_it(live_api: Api, frozen: None) -> None:
    at(1, 8, month=9)
    reseller = open_persona(Tier.ENTERPRISE_PLUS)
    customer = create_sub_user(live_api, reseller, tier="growth")
    for day in (10, 20):  # up to Scale for the working day, back to Growth a minute before midnight
        clock.freeze(datetime(2021, 9, day, 9, tzinfo=UTC))
        live_api.call("patch", f"/api/sub-users/{customer.id}", reseller, json={"tier": "scale"})
        clock.freeze(datetime(2021, 9, day, 23, 59, tzinfo=UTC))
        live_api.call("patch", f"/api/sub-users/{customer.id}", reseller, json={"tier": "growth"})

    [row] = report(live_api, reseller, "2021-09")["subUsers"]

    # September has 30 days: two of them at Scale's price, the other 28 at Growth's.
    assert row["revenue"] == float(cents(Decimal(399) * 2 / 30 + Decimal(19) * 28 / 30)) == 44.33
