"""Who may reach Flower. It shows every task's arguments and can revoke tasks or shut workers down, so
anywhere but loopback it must ask for a password: Flower's own default is no password on every interface.
``workers/flowerconfig.py`` checks this as Flower starts, whichever way it is started."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

LOOPBACK_NAMES = ("localhost",)


def refusal(address: str, *, unix_socket: str, basic_auth: Sequence[str], oauth: str) -> str | None:
    """Why Flower must not start with these options, or None when it may."""
    if unix_socket or is_loopback(address) or oauth or any(map(_has_password, basic_auth)):
        return None
    where = f"on {address}" if address else "on every interface"
    return (
        f"flower: refusing to listen {where} without a password; set FLOWER_BASIC_AUTH=user:password, "
        "or FLOWER_ADDRESS=127.0.0.1 to keep it on this machine"
    )


def is_loopback(address: str) -> bool:
    """An empty address is Flower's (Tornado's) every interface; a host name other than localhost may
    resolve anywhere, so only loopback addresses and ``localhost`` count."""
    text = address.strip().strip("[]")
    if text.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


def _has_password(credentials: str) -> bool:
    user, _, password = credentials.partition(":")
    return bool(user and password)
