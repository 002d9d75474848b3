"""The one outbound HTTP client: HTTPS POSTs to customer URLs, to checked addresses only, within 30 s whole.

Each request resolves the host, refuses it when any address is not allowed (``outbound_addresses``), then
connects to a checked address itself while TLS still verifies the certificate, and SNI names, the URL's
host. Resolving once and connecting to that answer is what defeats DNS rebinding (a second lookup by the
HTTP library could return 127.0.0.1). Redirects are never followed: a 3xx is the receiver's answer, and
following it would be an unchecked second target. Addresses are tried in resolver order when a connection
is refused, as browsers do.

The 30 s of spec 6.4 is a wall-clock deadline for the whole call (resolving, connecting, TLS, sending,
headers, the excerpt), not a per-read timeout: a socket timeout restarts at every byte, so a receiver that
trickles one byte every 25 s would hold a worker for hours. Socket timeouts are set to the time left, and a
watchdog shuts the socket down when the deadline passes, which ends any blocked read at once. Response
headers are bounded by the HTTP parser (100 lines of at most 64 KiB) and only ``EXCERPT_BYTES`` of the body
are read, so a huge or endless answer costs us nothing.
"""

from __future__ import annotations

import os
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from http.client import HTTPException
from urllib.parse import SplitResult, urlsplit

import certifi
from urllib3.connection import HTTPSConnection
from urllib3.exceptions import HTTPError, NewConnectionError, SSLError, TimeoutError
from urllib3.util.ssl_match_hostname import CertificateError

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


class Deadline:
    """A monotonic instant, and the watchdog that enforces it on the sockets opened before it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        self._watched: list[tuple[threading.Timer, socket.socket]] = []

    def left(self) -> float:
        return max(self.at - time.monotonic(), 0.0)

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def guard(self, sock: socket.socket) -> None:
        """Shut ``sock`` down at the deadline, so a blocked ``recv`` or TLS read returns at once.

        The watchdog holds a duplicate of the descriptor: TLS wrapping detaches the original socket object,
        and ``shutdown`` acts on the connection itself, whichever descriptor names it.
        """
        watched = socket.socket(fileno=os.dup(sock.fileno()))
        timer = threading.Timer(self.left(), _shut, args=(watched,))
        timer.daemon = True
        timer.start()
        self._watched.append((timer, watched))

    def cancel(self) -> None:
        for timer, watched in self._watched:
            timer.cancel()
            watched.close()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed: the request finished as the deadline fell
        return


class _GuardedConnection(HTTPSConnection):
    """urllib3's HTTPS connection, whose socket is put under the deadline's watchdog as it is opened."""

    deadline: Deadline

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        self.deadline.guard(sock)
        return sock


def post(url: str, body: bytes, headers: dict[str, str], *, user_agent: str = USER_AGENT) -> PostResult:
    """POST ``body`` to ``url``: the answer whatever its status, or ``DeliveryError`` when there is none."""
    deadline = Deadline(TIMEOUT_SECONDS)
    try:
        return _post(url, body, headers | {"User-Agent": user_agent}, deadline)
    finally:
        deadline.cancel()


def _post(url: str, body: bytes, headers: dict[str, str], deadline: Deadline) -> PostResult:
    target = urlsplit(url)
    if target.scheme != "https" or not target.hostname:
        raise DeliveryError(f"refused: {url!r} is not an https URL with a host")
    port = target.port or 443
    allow_loopback = get_settings().webhook_allow_loopback
    try:
        addresses = resolve_checked(target.hostname, port, allow_loopback=allow_loopback)
    except UnsafeTarget as refusal:
        raise DeliveryError(f"refused: {refusal.message}") from None
    request_headers = {
        "Host": target.netloc.rpartition("@")[2],
        "Content-Type": "application/json",
        **headers,
    }
    started = time.monotonic()
    for index, address in enumerate(addresses):
        try:
            status, excerpt = _post_to(address, port, target, (body, request_headers), deadline)
        except NewConnectionError:
            if index == len(addresses) - 1 or deadline.passed:
                raise DeliveryError(f"could not connect to {target.hostname} port {port}") from None
            continue
        except (HTTPError, OSError, CertificateError, HTTPException) as error:
            raise DeliveryError(_describe(error, deadline)) from None
        return PostResult(status, excerpt, round((time.monotonic() - started) * 1000))
    raise DeliveryError(f"{target.hostname} has no address")  # unreachable: resolve_checked returns >= 1


def _post_to(
    address: IPAddress,
    port: int,
    target: SplitResult,
    request: tuple[bytes, dict[str, str]],
    deadline: Deadline,
) -> tuple[int, str]:
    if deadline.passed:
        raise TimeoutError("deadline passed before connecting")
    hostname = target.hostname or ""
    connection = _GuardedConnection(
        host=str(address),
        port=port,
        timeout=deadline.left(),
        server_hostname=hostname,  # SNI (skipped by urllib3 for IP literals)
        assert_hostname=hostname,  # certificate must name the URL's host, not the address we dialled
        cert_reqs="CERT_REQUIRED",
        ca_certs=get_settings().webhook_ca_bundle or certifi.where(),
    )
    connection.deadline = deadline
    path = target.path or "/"
    if target.query:
        path += "?" + target.query
    try:
        body, headers = request
        connection.request("POST", path, body=body, headers=headers, preload_content=False)
        response = connection.getresponse()
        excerpt = response.read(EXCERPT_BYTES).decode("utf-8", errors="replace")
        if deadline.passed:  # the watchdog's shutdown reads as an end of headers or body: not an answer
            raise TimeoutError("the deadline passed while the answer was arriving")
        return response.status, excerpt
    finally:
        connection.close()


def _describe(error: Exception, deadline: Deadline) -> str:
    if deadline.passed or isinstance(error, TimeoutError | socket.timeout):
        return f"no complete answer within {TIMEOUT_SECONDS:.0f} seconds"
    if isinstance(error, SSLError | ssl.SSLError | CertificateError):
        return f"TLS handshake failed: {error}"
    return f"connection failed: {error}"
