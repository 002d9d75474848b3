"""Address rules on literals: only public unicast addresses are webhook targets (no connection is opened)."""

from __future__ import annotations

import ipaddress

import pytest

from services.webhooks.addresses import resolve_checked
from services.webhooks.errors import UnsafeTarget
from verifier.public_ip import refusal_reason

REFUSED = {
    "127.0.0.1": "loopback",
    "127.8.9.10": "loopback",
    "::1": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "link-local",  # cloud metadata service
    "fe80::1": "link-local",
    "fc00::1": "private",
    "224.0.0.1": "multicast",
    "ff02::1": "multicast",
    "0.0.0.0": "unspecified",
    "::": "unspecified",
    "240.0.0.1": "reserved",
    "100.64.0.1": "not a public address",  # carrier-grade NAT
    "192.0.2.10": "private",  # documentation range
    "::ffff:10.0.0.1": "private",  # IPv4-mapped
    "::ffff:127.0.0.1": "loopback",
    "64:ff9b::a00:1": "private",  # NAT64 of 10.0.0.1
    "2002:a00:1::1": "private",  # 6to4 of 10.0.0.1
    "fec0::1": "not a public address",  # IPv6 site-local, which Python still calls global
    "192.0.0.8": "not a public address",  # IETF protocol assignments
    "192.88.99.1": "not a public address",  # deprecated 6to4 relay anycast
    "3fff::1": "not a public address",  # IPv6 documentation (RFC 9637)
    "::ffff:192.0.0.8": "not a public address",
}
ALLOWED = ["93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946", "64:ff9b::808:808"]


@pytest.mark.parametrize(("literal", "reason"), REFUSED.items())
def test_non_public_addresses_are_refused(literal: str, reason: str) -> None:
    refusal = refusal_reason(ipaddress.ip_address(literal), allow_loopback=False)
    assert refusal is not None
    assert reason in refusal


@pytest.mark.parametrize("literal", ALLOWED)
def test_public_unicast_addresses_are_allowed(literal: str) -> None:
    assert refusal_reason(ipaddress.ip_address(literal), allow_loopback=False) is None


@pytest.mark.parametrize("literal", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_loopback_setting_allows_loopback_only(literal: str) -> None:
    assert refusal_reason(ipaddress.ip_address(literal), allow_loopback=True) is None


@pytest.mark.parametrize("literal", ["10.0.0.1", "169.254.169.254", "0.0.0.0"])
def test_loopback_setting_does_not_open_private_networks(literal: str) -> None:
    assert refusal_reason(ipaddress.ip_address(literal), allow_loopback=True) is not None


def test_an_ip_literal_host_is_checked_without_dns() -> None:
    with pytest.raises(UnsafeTarget, match=r"169\.254\.169\.254, a link-local address"):
        resolve_checked("169.254.169.254", 443, allow_loopback=True)


def test_localhost_is_refused_when_loopback_is_not_allowed() -> None:
    with pytest.raises(UnsafeTarget, match="loopback"):
        resolve_checked("localhost", 443, allow_loopback=False)
