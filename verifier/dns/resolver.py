"""``MailResolver``: where does mail for a domain go, asked of *our* configured nameservers only.

Every MX host name is resolved here, with the same resolver, and the prober connects to those IPs: a lab
or internal name must never leak to the system resolver (no ``getaddrinfo`` on MX names anywhere).

Answers are cached in a ``TtlCache`` for the smallest TTL involved (MX set, host addresses, or the SOA
negative TTL), capped by ``DNS_CACHE_MAX_TTL``. "Unknown" (timeout, SERVFAIL) is never cached: the next
attempt should ask again rather than repeat a failure for an hour. An MX host's addresses are cached on
their own too, until their records expire: thousands of domains name the same few hosts (a provider's,
a hosting company's), and each would otherwise ask A and AAAA of the same name again; a domain resolved
from them lives no longer than what is left of their TTL.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import dns.exception
import dns.name
import dns.rdatatype

from verifier.config import EngineConfig
from verifier.dns.cache import MemoryCache, TtlCache
from verifier.dns.lookup import Found, Lookup, make_resolver, query
from verifier.dns.model import DomainStatus, MailDomain, MxRecord

MAX_MX_HOSTS = 10  # beyond this many MX hosts we list the names but do not resolve them (the prober tries 3)
CACHE_KEY = "dns:mail:v1:{}"
HOST_KEY = "dns:host:v1:{}"
MIN_LIFETIME = 0.05
A, AAAA, MX = dns.rdatatype.A, dns.rdatatype.AAAA, dns.rdatatype.MX


@dataclass(frozen=True)
class _Addresses:
    addresses: tuple[str, ...]
    ttl: int | None
    error: str


class MailResolver:
    """Resolve ASCII domains to ``MailDomain``; safe to share between threads and greenlets."""

    def __init__(self, config: EngineConfig, cache: TtlCache | None = None) -> None:
        self._config = config
        self._cache: TtlCache = cache if cache is not None else MemoryCache()
        self._resolver = make_resolver(config)

    def resolve(self, ascii_domain: str) -> MailDomain:
        """MX records in preference order with their addresses, or why there are none. Never raises."""
        domain = ascii_domain.strip().rstrip(".").lower()
        key = CACHE_KEY.format(domain)
        cached = self._cache.get(key)
        if cached is not None:
            return MailDomain.from_dict(json.loads(cached))
        result = self._lookup_domain(domain)
        if result.status is not DomainStatus.UNKNOWN:
            self._cache.set(key, json.dumps(result.to_dict()), result.ttl)
        return result

    def _lookup_domain(self, domain: str) -> MailDomain:
        if not _is_dns_name(domain):
            return MailDomain(domain, DomainStatus.NXDOMAIN, detail="not a valid DNS name")
        mx = query(self._resolver, domain, MX, self._config.dns_timeout)
        if mx.found is Found.RECORDS:
            return self._from_mx(domain, mx)
        if mx.found is Found.NO_DATA:
            return self._implicit_mx(domain, mx)
        if mx.found is Found.NXDOMAIN:
            return MailDomain(
                domain, DomainStatus.NXDOMAIN, ttl=self._ttl(mx.ttl, negative=True), detail=mx.detail
            )
        return MailDomain(domain, DomainStatus.UNKNOWN, detail=mx.detail)

    def _from_mx(self, domain: str, mx: Lookup) -> MailDomain:
        exchanges = sorted(_parse_mx(text) for text in mx.values)
        real = [
            (pref, host) for pref, host in exchanges if host
        ]  # RFC 7505: a null MX beside real ones is ignored
        if not real:
            return MailDomain(
                domain, DomainStatus.NULL_MX, ttl=self._ttl(mx.ttl), detail="null MX (RFC 7505)"
            )
        budget_end = time.monotonic() + 2 * self._config.dns_timeout
        found = [self._addresses(host, budget_end) for _pref, host in real[:MAX_MX_HOSTS]]
        records = tuple(
            MxRecord(pref, host, found[i].addresses if i < len(found) else ())
            for i, (pref, host) in enumerate(real)
        )
        status = _status(found)
        ttl = min([self._ttl(mx.ttl)] + [self._ttl(item.ttl, negative=not item.addresses) for item in found])
        detail = "; ".join(item.error for item in found if item.error)
        return MailDomain(domain, status, records, ttl=ttl, detail=detail)

    def _implicit_mx(self, domain: str, mx: Lookup) -> MailDomain:
        """RFC 5321 5.1: without MX, the domain's own A/AAAA is the mail host (preference 0)."""
        own = self._addresses(domain, time.monotonic() + 2 * self._config.dns_timeout)
        if own.addresses:
            record = MxRecord(0, domain, own.addresses)
            return MailDomain(
                domain, DomainStatus.ACCEPTS_MAIL, (record,), implicit_mx=True, ttl=self._ttl(own.ttl)
            )
        if own.error:
            return MailDomain(domain, DomainStatus.UNKNOWN, detail=own.error)
        ttl = min(self._ttl(mx.ttl, negative=True), self._ttl(own.ttl, negative=True))
        return MailDomain(domain, DomainStatus.NO_MAIL_HOSTS, ttl=ttl, detail="no MX and no A/AAAA records")

    def _addresses(self, host: str, budget_end: float) -> _Addresses:
        """``host``'s addresses, from the cache while its records live, else asked (``_asked``)."""
        key = HOST_KEY.format(host)
        cached = self._cache.get(key)
        if cached is not None:
            addresses, until = json.loads(cached)
            return _Addresses(tuple(addresses), max(0, int(until - time.time())), "")
        found = self._asked(host, budget_end)
        if found.addresses and not found.error and found.ttl:
            ttl = self._ttl(found.ttl)
            self._cache.set(key, json.dumps([found.addresses, time.time() + ttl]), ttl)
        return found

    def _asked(self, host: str, budget_end: float) -> _Addresses:
        """A then AAAA of ``host`` (IPv4 first: most probing hosts have no IPv6 route on port 25)."""
        lookups = [self._bounded_query(host, rdtype, budget_end) for rdtype in (A, AAAA)]
        addresses = tuple(value for lookup in lookups for value in lookup.values)
        # A host with addresses lives as long as its records; the absence of AAAA beside an A does not
        # shorten that. A host without any lives as long as the negative answers.
        deciding = [lookup for lookup in lookups if lookup.found is Found.RECORDS] or lookups
        ttls = [lookup.ttl for lookup in deciding if lookup.ttl is not None]
        errors = [lookup.detail for lookup in lookups if lookup.found is Found.ERROR]
        return _Addresses(addresses, min(ttls) if ttls else None, "; ".join(errors))

    def _bounded_query(self, host: str, rdtype: dns.rdatatype.RdataType, budget_end: float) -> Lookup:
        remaining = budget_end - time.monotonic()
        if remaining < MIN_LIFETIME:
            return Lookup(Found.ERROR, detail=f"DNS time budget spent before {rdtype.name} {host}")
        return query(self._resolver, host, rdtype, min(self._config.dns_timeout, remaining))

    def _ttl(self, ttl: int | None, *, negative: bool = False) -> int:
        if ttl is None:
            ttl = self._config.dns_negative_ttl if negative else self._config.dns_cache_max_ttl
        return max(0, min(ttl, self._config.dns_cache_max_ttl))


def _status(found: list[_Addresses]) -> DomainStatus:
    if any(item.addresses for item in found):
        return DomainStatus.ACCEPTS_MAIL
    if any(item.error for item in found):
        return DomainStatus.UNKNOWN  # we could not resolve a host: it may well exist
    return DomainStatus.NO_MAIL_HOSTS


def _parse_mx(text: str) -> tuple[int, str]:
    """``"10 mx.example.com."`` -> ``(10, "mx.example.com")``; the null MX ``"0 ."`` -> ``(0, "")``."""
    preference, exchange = text.split()
    return int(preference), exchange.rstrip(".").lower()


def _is_dns_name(domain: str) -> bool:
    try:
        dns.name.from_text(domain)
    except dns.exception.DNSException:
        return False
    return bool(domain) and domain.isascii()
