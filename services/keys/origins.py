"""Allowed origins: the web pages whose scripts may use a key's publishable half (``POST /validate/browser``).

An origin is what a browser writes in its ``Origin`` header: ``scheme://host[:port]``. Entries are stored in
that serialised form (scheme and host lowercased, the scheme's default port left out, no trailing slash), so
matching a request is one exact comparison. A browser sends an internationalised host in its ``xn--`` form;
entries are ASCII for the same reason.

No wildcard, by design: ``https://*.example.com`` would let any sub-domain (a forgotten staging site, a
user-content host) run the key; each origin is listed, as it would be typed in the address bar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_ENTRIES = 50
MAX_LENGTH = 300  # a 253-character host, the scheme and a port
SCHEMES = {"http": 80, "https": 443}
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_PORT = r"[0-9]{1,5}"
_ORIGIN = re.compile(rf"(https?)://((?:{_LABEL}\.)*{_LABEL})(?::({_PORT}))?/?")
ADVICE = (
    "an origin is a scheme, a host and an optional port, exactly as the page's address starts "
    "(https://shop.example.com, http://localhost:3000): no path, no wildcard"
)


def normalise_origin(entry: str) -> str:
    """The serialised form of one entry; ValueError saying what an origin is when it is not one."""
    text = entry.strip().lower()
    match = _ORIGIN.fullmatch(text) if len(text) <= MAX_LENGTH else None
    if match is None:
        hint = "wildcards are not accepted; " if "*" in text else ""
        raise ValueError(f"{entry!r} is not an origin: {hint}{ADVICE}")
    scheme, host, port = match.groups()
    if port is not None and not 1 <= int(port) <= 65535:
        raise ValueError(f"{entry!r} has no valid port (1-65535)")
    shown_port = "" if port is None or int(port) == SCHEMES[scheme] else f":{int(port)}"
    return f"{scheme}://{host}{shown_port}"


def permits(allowed: Iterable[str], origin: str | None) -> bool:
    """Whether a request's ``Origin`` header names one of ``allowed``; no header (or ``null``, what a
    sandboxed frame or a local file sends) matches nothing, so a key without origins is not usable from
    any page."""
    if not origin:
        return False
    try:
        presented = normalise_origin(origin)
    except ValueError:
        return False
    return presented in allowed
