"""Allowlist entries: what is accepted, how it is normalised, what a client must match."""

from __future__ import annotations

import ipaddress

import pytest

from services.keys.allowlist import normalise_entry, permits
from services.keys.allowlist_pattern import ENTRY


@pytest.mark.parametrize(
    ("entry", "stored"),
    [
        ("192.0.2.1", "192.0.2.1"),
        (" 192.0.2.0/24 ", "192.0.2.0/24"),
        ("2001:DB8::1", "2001:db8::1"),
        ("2001:db8:0:0::/64", "2001:db8::/64"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("::/0", "::/0"),
        ("2001:db8:8000::/33", "2001:db8:8000::/33"),
        ("0:0:0:0:0:0:0:1", "::1"),
    ],
)
def test_entries_are_stored_in_canonical_form(entry: str, stored: str) -> None:
    assert normalise_entry(entry) == stored


@pytest.mark.parametrize(
    ("entry", "advice"),
    [
        ("192.0.2.1/24", "did you mean 192.0.2.0/24?"),
        ("2001:db8::1/32", "did you mean 2001:db8::/32?"),
        ("192.0.2.256", "is not an IPv4/IPv6 address or CIDR range"),
        ("example.com", "is not an IPv4/IPv6 address or CIDR range"),
        ("", "is not an IPv4/IPv6 address or CIDR range"),
        ("000", "is not an IPv4/IPv6 address or CIDR range"),
        ("192.0.2.0/024", "is not written as entries are"),
        ("fe80::1%eth0", "is not written as entries are"),
        ("::ffff:192.0.2.1", "is not written as entries are"),
    ],
)
def test_bad_entries_are_refused_with_advice(entry: str, advice: str) -> None:
    with pytest.raises(ValueError, match=advice.replace("?", r"\?")):
        normalise_entry(entry)


def test_an_empty_allowlist_admits_everyone() -> None:
    assert permits([], "203.0.113.1")


def test_a_mixed_list_matches_each_family_against_its_own_entries() -> None:
    entries = ["192.0.2.7", "10.0.0.0/8", "2001:db8::/32"]
    assert permits(entries, "192.0.2.7")
    assert permits(entries, "10.255.0.1")
    assert permits(entries, "2001:db8:ffff::1")
    assert permits(entries, "::ffff:10.0.0.1")  # IPv4-mapped IPv6 is the IPv4 client it carries
    assert not permits(entries, "192.0.2.8")
    assert not permits(entries, "2001:db9::1")


def test_an_unreadable_client_address_matches_nothing() -> None:
    assert not permits(["0.0.0.0/0", "::/0"], "not-an-ip")
    assert not permits(["0.0.0.0/0"], None)


def spellings(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> list[str]:
    if network.version == 4:
        return [str(network)]
    exploded, compressed = network.exploded, network.compressed
    return [
        exploded,
        compressed,
        exploded.upper(),
        compressed.replace("::", ":0::", 1),
        compressed.replace("/", "::/", 1),
    ]


def parses(written: str) -> bool:
    try:
        ipaddress.ip_network(written)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("bits", "build"), [(32, ipaddress.IPv4Network), (128, ipaddress.IPv6Network)])
def test_the_pattern_takes_every_range_without_host_bits_and_no_range_with_them(
    bits: int, build: type[ipaddress.IPv4Network] | type[ipaddress.IPv6Network]
) -> None:
    """The pattern is spelled out per prefix length (allowlist_pattern): each length, both ways."""
    ones = 2**bits - 1
    for prefix in range(bits + 1):
        network = build((ones >> (bits - prefix) << (bits - prefix), prefix))
        for written in spellings(network):
            assert bool(ENTRY.fullmatch(written)) == parses(written), written
        if prefix < bits:
            with_host_bit = f"{build((int(network.network_address) | 1, bits)).network_address}/{prefix}"
            assert not ENTRY.fullmatch(with_host_bit), with_host_bit
