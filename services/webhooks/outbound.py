"""The one outbound HTTP client: HTTPS POSTs to customer URLs, to checked addresses only.

Each request resolves the host, refuses it when any address is not allowed (``outbound_addresses``), then
connects to a checked address itself while TLS still verifies the certificate, and SNI names, the URL's
host. Resolving once and connecting to that answer is what defeats DNS rebinding (a second lookup by the
HTTP library could return 127.0.0.1). Redirects are never followed: a 3xx is the receiver's answer, and
following it would be an unchecked second target. One total timeout (30 s, spec 6.4) covers connecting,
sending and the response; only a short excerpt of the body is read, so a huge or endless response costs
us nothing. Addresses are tried in resolver order when a connection is refused, as browsers do.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import certifi
import urllib3
from urllib3.exceptions import HTTPError, NewConnectionError, SSLError, TimeoutError

from services.webhooks.addresses import resolve_checked
from services.webhooks.errors import DeliveryError, UnsafeTarget
from settings import get_settings
from verifier.public_ip import IPAddress

TIMEOUT_SECONDS = 30.0
EXCERPT_BYTES = 1024
USER_AGENT = "verimail-webhooks/1.0"
# What white-labelled accounts' receivers see instead: it names nobody (services.branding).
NEUTRAL_USER_AGENT = "webhook-delivery/1.0"


@dataclass(frozen=True)
class PostResult:
    status: int
    excerpt: str
    elapsed_ms: int


def post(url: str, body: bytes, headers: dict[str, str], *, user_agent: str = USER_AGENT) -> PostResult:
    """POST ``body`` to ``url``: the answer whatever its status, or ``DeliveryError`` when there is none."""
    settings = get_settings()
    target = urlsplit(url)
    if target.scheme != "https" or not target.hostname:
        raise DeliveryError(f"refused: {url!r} is not an https URL with a host")
    port = target.port or 443
    try:
        addresses = resolve_checked(target.hostname, port, allow_loopback=settings.webhook_allow_loopback)
    except UnsafeTarget as refusal:
        raise DeliveryError(f"refused: {refusal.message}") from None
    request_headers = {
        "Host": target.netloc.rpartition("@")[2],
        "Content-Type": "application/json",
        "User-Agent": user_agent,
        **headers,
    }
    started = time.monotonic()
    for index, address in enumerate(addresses):
        try:
            status, excerpt = _post_to(address, port, target, body, request_headers)
        except NewConnectionError:
            if index == len(addresses) - 1:
                raise DeliveryError(f"could not connect to {target.hostname} port {port}") from None
            continue
        except HTTPError as error:
            raise DeliveryError(_describe(error)) from None
        return PostResult(status, excerpt, round((time.monotonic() - started) * 1000))
    raise DeliveryError(f"{target.hostname} has no address")  # unreachable: resolve_checked returns >= 1


def _post_to(
    address: IPAddress, port: int, target: SplitResult, body: bytes, headers: dict[str, str]
) -> tuple[int, str]:
    hostname = target.hostname or ""
    pool = urllib3.HTTPSConnectionPool(
        host=str(address),
        port=port,
        server_hostname=hostname,  # SNI (skipped by urllib3 for IP literals)
        assert_hostname=hostname,  # certificate must name the URL's host, not the address we dialled
        cert_reqs="CERT_REQUIRED",
        ca_certs=get_settings().webhook_ca_bundle or certifi.where(),
        timeout=urllib3.Timeout(total=TIMEOUT_SECONDS),
        retries=False,
        maxsize=1,
    )
    path = target.path or "/"
    if target.query:
        path += "?" + target.query
    with pool:
        response = pool.urlopen(
            "POST",
            path,
            body=body,
            headers=headers,
            redirect=False,
            assert_same_host=False,
            preload_content=False,
        )
        try:
            excerpt = response.read(EXCERPT_BYTES).decode("utf-8", errors="replace")
        finally:
            response.release_conn()
    return response.status, excerpt


def _describe(error: HTTPError) -> str:
    if isinstance(error, SSLError):
        return f"TLS handshake failed: {error}"
    if isinstance(error, TimeoutError):
        return f"no answer within {TIMEOUT_SECONDS:.0f} seconds"
    return f"connection failed: {error}"
