"""Which addresses webhook deliveries may reach: public unicast only, so webhooks are no way inside.

A webhook URL is chosen by a customer, so without these rules anyone with a key could make our workers
POST to the metadata service (169.254.169.254), the database, or anything else on private networks, and
read a response excerpt back from the delivery log. Every address a host resolves to must be allowed
(an attacker controls their DNS and can mix one public and one private answer); the caller then connects
to one of the checked addresses rather than resolving again (DNS rebinding).

IPv6 forms that embed an IPv4 address (mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4, Teredo)
are judged by the embedded address too, since a translating network would deliver them there.
"""

from __future__ import annotations

import ipaddress
import socket
from ipaddress import IPv4Address, IPv6Address

from services.webhooks.errors import UnsafeTarget

IPAddress = IPv4Address | IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Ranges Python 3.11's ``is_global`` still calls public although no delivery should reach them: IPv6
# site-local (deprecated, still routed inside some networks), the IETF protocol block 192.0.0.0/24, the
# old 6to4 relay anycast and the IPv6 documentation prefix of RFC 9637.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(net) for net in ("fec0::/10", "192.0.0.0/24", "192.88.99.0/24", "3fff::/20")
)


def refusal_reason(address: IPAddress, *, allow_loopback: bool) -> str | None:
    """Why ``address`` is not a permitted target (``None`` when it is), in words fit for an error message."""
    for candidate in _judged_forms(address):
        reason = _own_refusal(candidate, allow_loopback=allow_loopback)
        if reason is not None:
            return reason
    return None


def _own_refusal(address: IPAddress, *, allow_loopback: bool) -> str | None:
    if address.is_loopback:
        return None if allow_loopback else "a loopback address"
    checks = (
        (address.is_unspecified, "an unspecified address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
        (not address.is_global or any(address in net for net in _NOT_PUBLIC), "not a public address"),
    )
    return next((reason for refused, reason in checks if refused), None)


def _judged_forms(address: IPAddress) -> list[IPAddress]:
    """The address itself, or for translated IPv6 forms the IPv4 address the packets would really reach.

    Mapped and NAT64 addresses are only spellings of their IPv4 address, so that alone is judged (their
    IPv6 prefixes count as non-global themselves); 6to4 and Teredo are judged as both.
    """
    if isinstance(address, IPv4Address):
        return [address]
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address in _NAT64:
        return [IPv4Address(int(address) & 0xFFFFFFFF)]
    tunnelled = [address.sixtofour, *(address.teredo or ())]
    return [address, *(candidate for candidate in tunnelled if candidate is not None)]


def resolve_checked(host: str, port: int, *, allow_loopback: bool) -> list[IPAddress]:
    """Every address of ``host``, in resolver order, after checking all of them; raises ``UnsafeTarget``."""
    addresses = _resolve(host, port)
    for address in addresses:
        reason = refusal_reason(address, allow_loopback=allow_loopback)
        if reason is not None:
            raise UnsafeTarget(f"The host {host} resolves to {address}, {reason}; use a public host.")
    return addresses


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise UnsafeTarget(f"The host {host} does not resolve to any address.") from None
    addresses: list[IPAddress] = []
    for info in infos:
        # Scope ids ("fe80::1%eth0") are stripped: the rules judge the address, not the interface.
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses
