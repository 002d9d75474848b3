"""Counted nouns read as a person would write them."""

from __future__ import annotations

import pytest

from core.words import plural


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, "0 days"), (1, "1 day"), (2, "2 days"), (30, "30 days"), (1_200, "1,200 days"), (-1, "-1 days")],
)
def test_a_count_takes_the_singular_only_when_it_is_one(count: int, expected: str) -> None:
    assert plural(count, "day") == expected


def test_an_irregular_plural_is_given_by_the_caller() -> None:
    assert plural(3, "entry", "entries") == "3 entries"
    assert plural(1, "entry", "entries") == "1 entry"
