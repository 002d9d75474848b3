"""The money rules on their own: exact fractions until a row is rounded half-up to the cent."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

import pytest

from models.accounts import Tier
from services.errors import InvalidField
from services.resellers.revenue import Month, commission_cents, overage_usd, subscription_usd, to_cents


def test_months_know_their_days_and_bounds() -> None:
    february = Month.parse("2024-02")
    assert (february.days, february.label, february.end) == (29, "2024-02", datetime(2024, 3, 1, tzinfo=UTC))
    assert Month.containing(datetime(2024, 12, 31, 23, 59, tzinfo=UTC)).following().label == "2025-01"
    assert len(february.day_bounds()) == 29


def test_an_overage_at_a_price_per_validation_that_never_terminates_is_rounded_once() -> None:
    # Enterprise: $799 / 1.8M validations = $0.000443888... each.
    assert overage_usd(1000, Tier.ENTERPRISE) == Fraction(799, 1800)
    assert to_cents(overage_usd(1000, Tier.ENTERPRISE)) == 44  # 0.44388... -> 0.44
    assert to_cents(overage_usd(1000, Tier.ENTERPRISE) * 3) == 133  # not 3 x 0.44


def test_half_a_cent_rounds_up() -> None:
    assert to_cents(Fraction(1, 200)) == 1
    assert to_cents(Fraction(1, 201)) == 0
    assert commission_cents(1900, Decimal("17.5")) == 333  # 332.5 -> 333
    assert commission_cents(2014, Decimal("17.5")) == 352  # 352.45 -> 352


def test_days_without_the_sub_user_cost_nothing() -> None:
    march = Month.parse("2021-03")
    days: list[Tier | None] = [None] * 15 + [Tier.PRO] * 16
    assert subscription_usd(days, march) == Fraction(49 * 16, 31)
    assert subscription_usd([None] * 31, march) == 0


@pytest.mark.parametrize("text", ["2021-00", "2021-13", "1999-01", "2021-1", "2021/01", ""])
def test_bad_periods_name_the_field(text: str) -> None:
    with pytest.raises(InvalidField) as raised:
        Month.parse(text)
    assert raised.value.extra == {"field": "period"}
