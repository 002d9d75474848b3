"""Role-based local parts (``admin@``, ``sales@``, ``noreply@``): mailboxes of a function, not a person.

Sources: RFC 2142's names and the MIT list of the npm package ``role-based-email-addresses`` (vendored in
``data/`` with its licence; no maintained PyPI list exists). Confidence says how sure the match is:

* high: an RFC 2142 name or the npm list's "notification" category (admin, support, noreply, ...);
* medium: an exact name from its other categories (marketing, meeting, other), which hold words that are
  sometimes a person's mailbox too (``ceo``, ``chef``, ``berlin``);
* low: not listed itself, but its first word is (``sales-emea``, ``info2``, ``support.uk``).

The local part is compared lowercase, without quotes and without a ``+tag`` (``Admin+x@`` is ``admin``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from verifier.lists._data import rows

HIGH_CATEGORIES = frozenset({"rfc2142", "notification"})
_FIRST_WORD = re.compile(r"[a-z]+")


class RoleConfidence(StrEnum):
    """How sure a role match is; the spec's ``roleBased.metadata.confidence``."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class RoleMatch:
    """The verdict on one local part; ``matched`` is the listed name that decided it."""

    is_role: bool
    confidence: RoleConfidence
    matched: str | None = None
    category: str | None = None


NOT_A_ROLE = RoleMatch(is_role=False, confidence=RoleConfidence.HIGH)


@functools.cache
def role_names() -> dict[str, str]:
    """Local part -> category, RFC 2142 winning over the npm list's category for the same name."""
    names = {name.lower(): category for name, category in rows("role-based-email-addresses.tsv")}
    names.update((name, "rfc2142") for name, _section in rows("rfc2142.txt"))
    return names


def role_match(local_part: str) -> RoleMatch:
    """Whether ``local_part`` names a role, and how sure that is."""
    base = local_part.strip('"').lower().partition("+")[0]
    names = role_names()
    if base in names:
        category = names[base]
        confidence = RoleConfidence.HIGH if category in HIGH_CATEGORIES else RoleConfidence.MEDIUM
        return RoleMatch(True, confidence, base, category)
    first = _FIRST_WORD.match(base)
    if first and first.group() != base and first.group() in names:
        return RoleMatch(True, RoleConfidence.LOW, first.group(), names[first.group()])
    return NOT_A_ROLE
