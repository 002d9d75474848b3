"""The unit a per-client limit counts: an IPv4 address, or an IPv6 address's /64.

One IPv6 subscriber is handed a whole /64 (often more), so counting exact IPv6 addresses would give each
client 2^64 fresh allowances."""

from __future__ import annotations

import ipaddress


def client_network(ip: str | None) -> str:
    """``"203.0.113.9"`` stays itself, ``"2001:db8:1:2::9"`` is ``"2001:db8:1:2::"``, junk ``unknown``."""
    try:
        address = ipaddress.ip_address(ip or "")
    except ValueError:
        return "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return str(address)
