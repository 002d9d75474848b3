"""schemathesis hooks for the contract run: webhook URLs it generates never leave loopback.

The service resolves a webhook URL's host when the endpoint is created and delivers to it later, so a
generated ``https://example.com/`` would send a DNS query, and a public IP literal a connection, off this
machine. Every URL that parses is pointed at ``localhost`` port 9 (nothing listens) before it is sent;
private and loopback literals are kept, since the service must refuse those itself without connecting.
Strings that do not parse as a URL with a host are sent as generated: the service refuses them unread.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import schemathesis

SAFE_NETLOC = "localhost:9"
# The key the run authenticates with: generated key ids never name it, or a DELETE would end the run.
PROTECTED_KEY_ID = os.environ.get("CONTRACT_KEY_ID", "")


# Any id the run's own key is asked about becomes one no key has (ids start at 1): the coverage and
# stateful phases do not consult ``filter_path_parameters``, and a PATCH or DELETE of the run's key
# would turn every later request into a 401.
NO_KEY_ID = 0


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if isinstance(case.path_parameters, dict) and names_run_key(case.path_parameters.get("key_id")):
        case.path_parameters["key_id"] = NO_KEY_ID
    if isinstance(case.body, dict) and isinstance(case.body.get("url"), str):
        case.body["url"] = on_loopback(case.body["url"])


def names_run_key(value: Any) -> bool:
    """Whether the route's int converter would read ``value`` as the run's key id ("01" included)."""
    written = str(value).strip()
    return written.isdigit() and written.isascii() and int(written) == int(PROTECTED_KEY_ID or -1)


def on_loopback(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        _ = parts.port
    except ValueError:
        return url
    if not parts.hostname or _kept_literal(parts.hostname):
        return url
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@{SAFE_NETLOC}" if credentials else SAFE_NETLOC
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _kept_literal(host: str) -> bool:
    try:
        return not ipaddress.ip_address(host.split("%", 1)[0]).is_global
    except ValueError:
        return False
