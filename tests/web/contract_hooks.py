"""schemathesis hooks for the contract run: its own key survives, it authenticates one way, webhook URLs
it generates never leave loopback, and formats the document names have values.

- The run's key: any id naming it becomes one no key has (ids start at 1). The coverage and stateful
  phases do not consult ``filter_path_parameters``, and a PATCH or DELETE of that key would turn every
  later request into a 401.
- One credential: the run sends its key in ``X-API-Key``; the ``Authorization`` header and ``api_key``
  query parameter schemathesis would add for the other security schemes are dropped, since the service
  reads ``X-API-Key`` first and ignores them (a "negative" bearer token would look accepted).
- Webhook URLs: the service resolves a URL's host when the endpoint is created and delivers to it
  later, so a generated ``https://example.com/`` would send a DNS query, and an IP literal a connection,
  off this machine. Every URL with a host is pointed at ``localhost`` port 9 (nothing listens) before it
  is sent; the refusal of private and loopback targets is tested in tests/webhooks, not here.
- ``ip-address-or-network`` (``allowedIps``): the document's pattern says exactly which entries are
  taken, but it is long (every prefix length spelled out) and drawing from it costs seconds per
  strategy; values of the format (addresses and ranges with no host bits set) are drawn instead, and
  checked against the pattern. That the pattern is there is tested beside this run.
- A CSV upload is text: its only schema is the pattern of the plain form, and the reader takes more CSV
  than a pattern can describe, so text outside the pattern (including numbers schemathesis would send as
  their text) is not generated. An array or object generated for it is kept: schemathesis sends it as
  JSON text, which the service must refuse (a JSON list sent as CSV). The upload's query string and JSON
  body are fuzzed both ways.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import schemathesis
from hypothesis import strategies as st

SAFE_NETLOC = "localhost:9"
PROTECTED_KEY_ID = os.environ.get("CONTRACT_KEY_ID", "")
NO_KEY_ID = 0
QUERY_KEY = "api_key"
CSV = "text/csv"


def _network(bits: int, build: Any) -> st.SearchStrategy[str]:
    return st.tuples(st.integers(0, 2**bits - 1), st.integers(0, bits)).map(
        lambda drawn: str(build(drawn, strict=False))
    )


schemathesis.openapi.format(
    "ip-address-or-network",
    st.one_of(
        st.integers(0, 2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n))),
        st.integers(0, 2**128 - 1).map(lambda n: str(ipaddress.IPv6Address(n))),
        _network(32, ipaddress.IPv4Network),
        _network(128, ipaddress.IPv6Network),
    ),
)


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    if case.media_type != CSV or isinstance(case.body, dict | list):
        return True
    return isinstance(case.body, str) and re.fullmatch(_csv_pattern(case), case.body) is not None


def _csv_pattern(case: Any) -> str:
    pattern: str = case.operation.definition.raw["requestBody"]["content"][CSV]["schema"]["pattern"]
    return pattern


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if case.path_parameters and names_run_key(case.path_parameters.get("key_id")):
        case.path_parameters["key_id"] = NO_KEY_ID
    if case.headers:
        case.headers.pop("Authorization", None)
    if case.query:
        case.query.pop(QUERY_KEY, None)
    if isinstance(case.body, dict) and isinstance(case.body.get("url"), str):
        case.body["url"] = on_loopback(case.body["url"])


def names_run_key(value: Any) -> bool:
    """Whether the route's int converter would read ``value`` as the run's key id ("01" included)."""
    written = str(value).strip()
    return written.isdigit() and written.isascii() and int(written) == int(PROTECTED_KEY_ID or -1)


def on_loopback(url: str) -> str:
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        return url
    if not parts.hostname:
        return url
    credentials = parts.netloc.rpartition("@")[0]
    netloc = f"{credentials}@{SAFE_NETLOC}" if credentials else SAFE_NETLOC
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
