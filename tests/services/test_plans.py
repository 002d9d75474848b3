"""Spec 8.1 in one place: six tiers with their limits, prices and names."""

from __future__ import annotations

from models.accounts import Tier
from services.usage.plans import PLANS, plan_for


def test_the_six_tiers_carry_the_spec_table_and_the_trial_is_below_them() -> None:
    table = {
        tier.value: (
            p.name,
            p.requests_per_minute,
            p.requests_per_day,
            p.monthly_volume,
            p.key_limit,
            p.monthly_price_usd,
        )
        for tier, p in PLANS.items()
    }
    assert table == {
        "trial": ("Trial", 10, 100, 100, 2, 0),
        "growth": ("Growth", 10, 167, 5_000, 2, 19),
        "pro": ("Pro", 23, 333, 10_000, 3, 49),
        "business": ("Business", 93, 1_333, 40_000, 5, 149),
        "scale": ("Scale", 289, 4_167, 125_000, 8, 399),
        "enterprise": ("Enterprise", 2_000, 60_000, 1_800_000, 20, 799),
        "enterprise_plus": ("Enterprise Plus", 5_000, 150_000, 4_500_000, None, 2_499),
    }


def test_a_stored_tier_identifier_finds_its_plan() -> None:
    assert plan_for("scale") is PLANS[Tier.SCALE]
