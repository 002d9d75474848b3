"""Role-based local parts (``admin@``, ``sales@``, ``noreply@``): mailboxes of a function, not a person.

Sources: RFC 2142's names and the MIT list of the npm package ``role-based-email-addresses`` (vendored in
``data/`` with its licence; no maintained PyPI list exists).

The local part is compared lowercase, without quotes and without a ``+tag`` (``Sales+eu@`` is ``sales``),
and it must be a role *as a whole*: list checkers (Reacher, ZeroBounce, Kickbox) match an enumerated list
exactly, because a role word that merely starts or ends a local part is as often a person's handle
(``abc789``, ``web123``, ``salesforce.fan``, ``john.sales``). Pieces are the runs between ``.``, ``-``, ``_``.
In the order tried:

1. the local part is listed: high for an RFC 2142 name or the npm "notification" category (``info``,
   ``support``, ``noreply``), medium for its other categories, which hold words that are sometimes a
   person's mailbox too (``ceo``, ``chef``, ``berlin``);
2. written with separators, it is a listed name (``help.desk``, ``do.not.reply``): that name's confidence.
   Pieces of one letter are initials (``h.r``, ``m.d``) and never count;
3. a run of pieces spells a no-reply marker (``shop-noreply``, ``billing.no.reply``): high, since no
   person's name holds one as a whole word (``bruno.reply`` does not);
4. every piece is a listed name (``it-support``, ``support.uk``, ``hr.team``): medium when one of them is a
   high-confidence name, else low.

Anything else is not a role: digits (``info2``), names (``john.sales``, ``sales.john``) and qualifiers
the lists do not hold (``sales-emea``) make it someone's own address as far as we can tell.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum

from verifier.lists._data import rows

HIGH_CATEGORIES = frozenset({"rfc2142", "notification"})
NO_REPLY_MARKERS = frozenset({"noreply", "donotreply", "noresponse"})
_SEPARATORS = re.compile(r"[._-]")
MIN_PIECE = 2  # a one-letter piece is an initial: h.r@ is a person before it is "hr"


class RoleConfidence(StrEnum):
    """How sure a role match is; the spec's ``roleBased.metadata.confidence``."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class RoleMatch:
    """The verdict on one local part; ``matched`` is the listed name (or the compound) that decided it."""

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
    """Whether ``local_part`` names a role as a whole, and how sure that is (rules in the module doc)."""
    base = local_part.strip('"').lower().partition("+")[0]
    return _listed(base) or _by_pieces(base) or NOT_A_ROLE


def _by_pieces(base: str) -> RoleMatch | None:
    pieces = _SEPARATORS.split(base)
    if len(pieces) == 1 or any(len(piece) < MIN_PIECE for piece in pieces):
        return None
    return _listed("".join(pieces)) or _no_reply(pieces) or _compound(base, pieces)


def _listed(name: str) -> RoleMatch | None:
    category = role_names().get(name)
    if category is None:
        return None
    return RoleMatch(True, _confidence(category), name, category)


def _confidence(category: str) -> RoleConfidence:
    return RoleConfidence.HIGH if category in HIGH_CATEGORIES else RoleConfidence.MEDIUM


def _no_reply(pieces: list[str]) -> RoleMatch | None:
    """A run of whole pieces that spells a no-reply marker (``acme-no-reply``, ``noreply.billing``)."""
    count = len(pieces)
    runs = ("".join(pieces[start:end]) for start in range(count) for end in range(start + 1, count + 1))
    marker = next((run for run in runs if run in NO_REPLY_MARKERS), None)
    return RoleMatch(True, RoleConfidence.HIGH, marker, "notification") if marker else None


def _compound(base: str, pieces: list[str]) -> RoleMatch | None:
    """Role words only (``it-support``): as sure as its surest word allows, one step less."""
    names = role_names()
    if not all(piece in names for piece in pieces):
        return None
    categories = [names[piece] for piece in pieces]
    surest = next((category for category in categories if category in HIGH_CATEGORIES), None)
    confidence = RoleConfidence.MEDIUM if surest else RoleConfidence.LOW
    return RoleMatch(True, confidence, base, surest or categories[0])
