"""Which addresses webhook deliveries may reach: public unicast only, so webhooks are no way inside.

A webhook URL is chosen by a customer, so without these rules anyone with a key could make our workers
POST to the metadata service (169.254.169.254), the database, or anything else on private networks, and
read a response excerpt back from the delivery log. Every address a host resolves to must be allowed
(an attacker controls their DNS and can mix one public and one private answer); the caller then connects
to one of the checked addresses rather than resolving again (DNS rebinding).

The rules themselves are the engine's (``verifier.public_ip``): one definition of "public" for webhook
targets and MX hosts alike.
"""

from __future__ import annotations

import ipaddress
import socket

from services.webhooks.errors import UnsafeTarget
from verifier.public_ip import IPAddress, refusal_reason


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
