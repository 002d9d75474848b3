"""MailResolver against the lab DNS: what a user of the domain check would see for every kind of zone."""

from __future__ import annotations

import secrets
import time

import pytest

from maillab import MailLab
from maillab.model import DomainSpec
from maillab.world import standard_world
from verifier.dns import DomainStatus, MailResolver, MemoryCache


@pytest.fixture
def resolver(lab):
    return MailResolver(lab.engine_config(dns_timeout=0.5))


def test_mx_records_come_in_preference_order_with_addresses_from_our_resolver(resolver):
    domain = resolver.resolve("backup.test")
    assert domain.status is DomainStatus.ACCEPTS_MAIL
    assert domain.has_mx
    assert domain.mx_hosts == ["mx1.backup.test", "mx2.backup.test"]
    assert [record.addresses for record in domain.mx_records] == [("127.0.0.2",), ("127.0.0.11",)]


def test_domain_without_mx_uses_its_own_address_as_implicit_mx(resolver):
    domain = resolver.resolve("implicit.test")
    assert domain.accepts_mail
    assert domain.implicit_mx
    assert not domain.has_mx
    assert domain.mx_hosts == []
    assert domain.mx_records[0].addresses == ("127.0.0.11",)


def test_aaaa_only_domain_is_an_implicit_mx(resolver):
    domain = resolver.resolve("v6only.test")
    assert domain.accepts_mail
    assert domain.mx_records[0].addresses == ("::1",)


def test_null_mx_accepts_no_mail(resolver):
    domain = resolver.resolve("nullmx.test")
    assert domain.status is DomainStatus.NULL_MX
    assert not domain.has_mx
    assert domain.status.is_definitive_no


def test_nonexistent_domain_is_nxdomain(resolver):
    assert resolver.resolve("no-such-domain.test").status is DomainStatus.NXDOMAIN


def test_name_without_mx_or_address_has_no_mail_hosts(resolver):
    assert resolver.resolve("nodata.test").status is DomainStatus.NO_MAIL_HOSTS


def test_mx_pointing_at_a_missing_host_has_no_mail_hosts(resolver):
    domain = resolver.resolve("nohost.test")
    assert domain.status is DomainStatus.NO_MAIL_HOSTS
    assert domain.mx_hosts == ["mx.missing.test"]


@pytest.mark.parametrize("name", ["servfail.test", "timeout.test", "mxtimeout.test"])
def test_servfail_and_timeouts_are_unknown_never_invalid(resolver, name):
    domain = resolver.resolve(name)
    assert domain.status is DomainStatus.UNKNOWN
    assert not domain.status.is_definitive_no


def test_idn_domain_resolves_by_its_ascii_name(resolver):
    domain = resolver.resolve("xn--mnchen-3ya.test")
    assert domain.mx_hosts == ["mx.xn--mnchen-3ya.test"]


def test_answers_too_big_for_udp_are_fetched_over_tcp(resolver):
    domain = resolver.resolve("big.test")
    assert len(domain.mx_hosts) == 80
    assert domain.mx_hosts[0] == "mx00.big.test"


def test_names_that_cannot_exist_in_dns_are_nxdomain_without_a_query(resolver):
    assert resolver.resolve("a..b").status is DomainStatus.NXDOMAIN
    assert resolver.resolve("x" * 64 + ".test").status is DomainStatus.NXDOMAIN


def test_cache_keeps_the_smallest_ttl_and_serves_without_dns():
    cache = MemoryCache()
    with MailLab(standard_world()) as lab:
        resolver = MailResolver(lab.engine_config(dns_timeout=0.3), cache)
        first = resolver.resolve("ttl.test")
        unknown = resolver.resolve("servfail.test")
    assert first.ttl == 45  # MX TTL 120, host A TTL 45
    assert unknown.status is DomainStatus.UNKNOWN
    # the lab is gone: a cached answer still comes back, an unknown one was not cached
    assert resolver.resolve("ttl.test") == first
    assert resolver.resolve("servfail.test").status is DomainStatus.UNKNOWN
    assert cache.get("dns:mail:v1:servfail.test") is None


def test_memory_cache_expires_entries_after_their_ttl():
    now = [0.0]
    cache = MemoryCache(clock=lambda: now[0])
    cache.set("k", "v", 10)
    now[0] = 9.9
    assert cache.get("k") == "v"
    now[0] = 10.0
    assert cache.get("k") is None


def test_mail_domain_survives_a_json_round_trip(resolver):
    domain = resolver.resolve("backup.test")
    assert type(domain).from_dict(domain.to_dict()) == domain


def test_domains_naming_one_mx_host_ask_its_addresses_once_and_live_no_longer_than_them(resolver, lab):
    host = f"mx-{secrets.token_hex(4)}.test"
    first, second = (f"hosted-{secrets.token_hex(4)}.test" for _ in range(2))
    lab.publish(
        DomainSpec(host, a=("127.0.0.11",), ttl=3),
        *(DomainSpec(name, mx=((10, host),), ttl=300) for name in (first, second)),
    )
    assert resolver.resolve(first).ttl == 3
    time.sleep(1.1)
    lab.reset()

    hosted = resolver.resolve(second)

    assert hosted.mx_records[0].addresses == ("127.0.0.11",)
    assert lab.dns_questions == [second]  # its MX only: the host's A and AAAA were asked for the first
    assert hosted.ttl <= 2  # what is left of the host's records, not its full TTL again
