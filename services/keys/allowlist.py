"""IP allowlists (spec 5.4): parsing entries when a key is saved, matching a client when it calls.

Entries are exact IPv4/IPv6 addresses or CIDR ranges of either family, mixed freely; they are stored in
the normalised form ``ipaddress`` prints, so ``2001:DB8::0/32`` and ``2001:db8::/32`` are one entry.
A range with host bits set (``10.0.0.7/24``) is refused rather than silently widened: the owner meant
either the address or the network, and guessing wrong opens or closes the door to the wrong clients.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from services.keys.allowlist_pattern import ENTRY

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_ENTRIES = 100


def normalise_entry(entry: str) -> str:
    """The canonical text of one entry; ValueError with advice when it is not an address or range."""
    text = entry.strip()
    if not ENTRY.fullmatch(text):
        raise ValueError(_advice(entry, text))
    network = ipaddress.ip_network(text)
    return str(network.network_address) if "/" not in text else str(network)


def _advice(entry: str, text: str) -> str:
    loose = _loose_network(text)
    if loose is None:
        return f"{entry!r} is not an IPv4/IPv6 address or CIDR range"
    if not _strict(text):
        return f"{entry!r} has host bits set; did you mean {loose}?"
    return (
        f"{entry!r} is not written as entries are: dotted decimal IPv4, hexadecimal IPv6 groups (no zone, "
        "no dotted IPv4 inside), a prefix length without leading zeros"
    )


def _strict(text: str) -> bool:
    try:
        ipaddress.ip_network(text, strict=True)
    except ValueError:
        return False
    return True


def _loose_network(text: str) -> Network | None:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def parse_address(text: str | None) -> Address | None:
    """A client address, with IPv4-mapped IPv6 (``::ffff:192.0.2.1``) unwrapped to IPv4."""
    try:
        address = ipaddress.ip_address((text or "").strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def permits(entries: Iterable[str], client_ip: str | None) -> bool:
    """An empty list lets every client in; otherwise the client must fall inside one entry.

    An unparseable client address matches nothing, so a key with an allowlist fails closed.
    """
    networks = [ipaddress.ip_network(entry) for entry in entries]
    if not networks:
        return True
    address = parse_address(client_ip)
    return address is not None and any(address in network for network in networks)
