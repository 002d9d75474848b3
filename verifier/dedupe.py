"""When two entries of a list are the same address: the key a list is de-duplicated and charged by.

Two inputs are the same address when they are equal once the blanks around them are trimmed (as the
engine trims them), Unicode-normalised (NFC), lowercased, and the domain written in its A-label (IDNA)
form, so ``" John@Example.COM"``, ``"john@example.com"`` and ``jörg@münchen.de`` / ``jörg@xn--mnchen-3ya.de``
pair up. It is deliberately cheap (about a microsecond, no full parse), because it runs on every row of an
upload as it streams in. Inputs that are not addresses get a key too (the same text is the same failure).
Every pair this key joins parses to the same normalised address, so joined rows always share a verdict;
the rare pair it misses (an exotic Unicode form) is probed once anyway and merely charged twice.
"""

from __future__ import annotations

import unicodedata

import idna

from verifier.syntax import trim


def address_key(raw: str) -> str:
    """The de-duplication key of ``raw`` (see the module docstring)."""
    text = unicodedata.normalize("NFC", trim(raw))
    local, at, domain = text.rpartition("@")
    if not at:
        return text.lower()
    return f"{local.lower()}@{_ascii_domain(domain.lower())}"


def _ascii_domain(domain: str) -> str:
    if domain.isascii():
        return domain
    try:
        return idna.encode(domain, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):  # not a valid domain: the address fails syntax anyway
        return domain
