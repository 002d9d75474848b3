"""Counted nouns in words people read: "1 day", "30 days", "1,200 validations"."""

from __future__ import annotations


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` with the noun in its right number; ``plural_form`` for nouns that do not take an "s"."""
    noun = singular if count == 1 else (plural_form or f"{singular}s")
    return f"{count:,} {noun}"
