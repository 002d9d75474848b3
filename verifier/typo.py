"""Typo suggestion for the domain: ``gmial.com`` -> ``gmail.com``, ``acme.cmo`` -> ``acme.com``.

Two steps, on the A-label form of the domain:

1. an unknown top-level domain (not in the public suffix list) one edit from a common one is replaced
   (``con``/``cmo``/``c0m`` -> ``com``); a TLD that exists (``.co``, ``.cm``) or is reserved (``.test``)
   is left alone;
2. the result is compared with the popular provider domains (``verifier/lists/data/popular-domains.txt``)
   by optimal string alignment distance, which counts a swapped pair as one edit (``gmial`` -> ``gmail``).

False corrections cost more than missed ones (a user told "did you mean" for their real domain loses trust),
so the allowed distance depends on the target's name: none for names under 5 characters (``me.com`` must
not pull ``be.com``), one up to 8, two from 9 (``googlemail``). A domain that is itself a known provider
(popular, free or relay: ``gmx.de``, ``me.com``, ``ymail.com``) is never corrected.
"""

from __future__ import annotations

import functools

from publicsuffixlist import PublicSuffixList
from rapidfuzz import process
from rapidfuzz.distance import OSA

from verifier.lists import domain_lists, is_known_provider
from verifier.lists.domains import DOMAINS_MEMOIZED

COMMON_TLDS = (
    "com",
    "net",
    "org",
    "de",
    "uk",
    "fr",
    "it",
    "es",
    "nl",
    "ru",
    "ca",
    "au",
    "br",
    "jp",
    "in",
    "io",
    "co",
    "us",
    "edu",
    "info",
    "ch",
    "at",
    "be",
    "pl",
    "se",
    "dk",
    "no",
    "fi",
    "cz",
    "pt",
    "mx",
    "ar",
)
RESERVED_TLDS = frozenset({"test", "example", "invalid", "localhost", "local", "onion"})  # RFC 2606, 6761
MAX_DISTANCE = 2


@functools.cache
def icann_suffixes() -> PublicSuffixList:
    return PublicSuffixList(only_icann=True)  # private suffixes (github.io) are not mail TLDs


@functools.lru_cache(maxsize=DOMAINS_MEMOIZED)  # static lists: the same domain, the same suggestion
def suggest_domain(ascii_domain: str) -> str | None:
    """The domain the user probably meant, or None when the domain looks as intended."""
    if is_known_provider(ascii_domain):
        return None
    fixed = _with_known_tld(ascii_domain)
    provider = _closest_provider(fixed)
    if provider is not None and provider != ascii_domain:
        return provider
    return fixed if fixed != ascii_domain else None


def _with_known_tld(domain: str) -> str:
    """Swap an unknown TLD for the nearest common one, one edit away; reserved TLDs (RFC 2606) stay."""
    name, _, tld = domain.rpartition(".")
    if not name or tld in RESERVED_TLDS or icann_suffixes().publicsuffix(domain, accept_unknown=False):
        return domain
    match = process.extractOne(tld, COMMON_TLDS, scorer=OSA.distance, score_cutoff=1)
    return f"{name}.{match[0]}" if match else domain


def _closest_provider(domain: str) -> str | None:
    """The most popular provider domain within that provider's allowed distance."""
    popular = domain_lists().popular
    matches = process.extract(domain, popular, scorer=OSA.distance, score_cutoff=MAX_DISTANCE, limit=None)
    ranked = sorted(matches, key=lambda match: (match[1], match[2]))  # distance, then popularity
    return next((target for target, distance, _ in ranked if distance <= _allowed_distance(target)), None)


def _allowed_distance(target: str) -> int:
    name = target.partition(".")[0]
    if len(name) < 5:
        return 0
    return 1 if len(name) < 9 else 2
