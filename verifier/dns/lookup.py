"""One DNS question to our configured resolver, folded into a small outcome the resolver can reason on.

dnspython signals outcomes with exceptions; here they become data: records found, no data, NXDOMAIN, or
an error (timeout, SERVFAIL, refused, network) that must never be read as "does not exist".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

import dns.exception
import dns.message
import dns.name
import dns.nameserver
import dns.rdatatype
import dns.resolver

from verifier.config import EngineConfig


class Found(Enum):
    RECORDS = "records"
    NO_DATA = "no_data"  # the name exists, without records of that type
    NXDOMAIN = "nxdomain"
    ERROR = "error"


@dataclass(frozen=True)
class Lookup:
    """Outcome of one query: rdata as text, the TTL to cache it for (None = unknown), a detail."""

    found: Found
    values: tuple[str, ...] = field(default=())
    ttl: int | None = None
    detail: str = ""


def make_resolver(config: EngineConfig) -> dns.resolver.Resolver:
    """Our resolver: the configured nameservers (host:port), else the system's; never any cache of its own."""
    if config.dns_nameservers:
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers = [
            dns.nameserver.Do53Nameserver(ns.host, ns.port) for ns in config.dns_nameservers
        ]
    else:
        resolver = dns.resolver.Resolver()
    resolver.timeout = resolver.lifetime = config.dns_timeout
    resolver.cache = None
    return resolver


def query(
    resolver: dns.resolver.Resolver, name: str, rdtype: dns.rdatatype.RdataType, lifetime: float
) -> Lookup:
    """Ask ``name``/``rdtype`` once, bounded by ``lifetime`` seconds."""
    try:
        answer = resolver.resolve(dns.name.from_text(name), rdtype, lifetime=lifetime, search=False)
    except dns.resolver.NXDOMAIN as error:
        responses = list(error.kwargs.get("responses", {}).values())
        return Lookup(Found.NXDOMAIN, ttl=_negative_ttl(responses), detail="NXDOMAIN")
    except dns.resolver.NoAnswer as error:
        response = error.kwargs.get("response")
        return Lookup(Found.NO_DATA, ttl=_negative_ttl([response]), detail="no data")
    except dns.exception.Timeout:
        return Lookup(Found.ERROR, detail=f"timeout asking {rdtype.name} {name}")
    except dns.resolver.NoNameservers:
        return Lookup(Found.ERROR, detail=f"SERVFAIL or refused asking {rdtype.name} {name}")
    except (dns.exception.DNSException, OSError) as error:
        return Lookup(Found.ERROR, detail=f"{type(error).__name__} asking {rdtype.name} {name}")
    assert answer.rrset is not None  # resolve() raises NoAnswer rather than return an empty answer
    return Lookup(Found.RECORDS, tuple(rdata.to_text() for rdata in answer.rrset), answer.rrset.ttl)


def _negative_ttl(responses: Iterable[object]) -> int | None:
    """RFC 2308: a negative answer is cached for min(SOA TTL, SOA MINIMUM) of the authority SOA."""
    for response in responses:
        if not isinstance(response, dns.message.Message):
            continue
        for rrset in response.authority:
            if rrset.rdtype == dns.rdatatype.SOA:
                return int(min(rrset.ttl, rrset[0].minimum))
    return None
