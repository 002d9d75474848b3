"""Which IP addresses the engine may connect to: public unicast only.

An MX record is chosen by whoever owns the domain, so without this rule anyone able to submit an address
could make the prober open TCP to port 25 (or the configured port) of our own loopback, the private
networks around it or the cloud metadata service, and read the banner or the connect error back in the
result. The caller judges the very IP it is about to connect to, found by the engine's own resolver, so no
second lookup can swap in another address (DNS rebinding).

IPv6 forms that embed an IPv4 address (mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4, Teredo)
are judged by the embedded address too, since a translating network would deliver them there. The rules
and their wording are the same as the service's for webhook targets, so that code may import these.
"""

from __future__ import annotations

import functools
import ipaddress
from ipaddress import IPv4Address, IPv6Address

IPAddress = IPv4Address | IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Named although ``is_global`` already refuses it: shared address space (RFC 6598, carrier-grade NAT) is
# inside someone's network. Then ranges Python 3.11's ``is_global`` still calls public although nothing of
# ours should reach them: IPv6 site-local (deprecated, still routed inside some networks), the IETF
# protocol block 192.0.0.0/24, the old 6to4 relay anycast and the IPv6 documentation prefix of RFC 9637.
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(net)
    for net in ("100.64.0.0/10", "fec0::/10", "192.0.0.0/24", "192.88.99.0/24", "3fff::/20")
)


def refusal_reason(address: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """Why ``address`` may not be connected to (``None`` when it may), in words fit for a message."""
    for candidate in _judged_forms(address):
        reason = _own_refusal(candidate, allow_loopback=allow_loopback)
        if reason is not None:
            return reason
    return None


@functools.lru_cache(maxsize=4096)
def text_refusal_reason(text: str, *, allow_loopback: bool = False) -> str | None:
    """``refusal_reason`` of an address given as text; text that is no IP address is refused too.
    Remembered: every group asks it of each of its MX addresses, and a fleet sees few of them."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return "not an IP address"
    return refusal_reason(address, allow_loopback=allow_loopback)


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
