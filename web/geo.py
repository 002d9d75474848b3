"""IP address to country, offline (``iptocc``: the regional registries' delegation files, shipped in the
package and refreshed with its releases), so a validation never waits on a geolocation service."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

import iptocc


# Per address: the answer is fixed for the life of the process (the package's data), and parsing the
# address and searching the table ran on every validation. Clients repeat; a flood of new ones only
# evicts entries.
@lru_cache(maxsize=4096)
def country_of(ip: str | None) -> str | None:
    """ISO 3166-1 alpha-2 code of ``ip``; None for private, loopback, reserved or unknown addresses."""
    if not ip:
        return None
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return None
    if not address.is_global:
        return None
    code: str | None = iptocc.country_code(str(address))
    return code
