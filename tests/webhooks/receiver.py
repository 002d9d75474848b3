"""A real HTTPS webhook receiver on loopback, with a certificate from a test CA (trustme).

It verifies every delivery with the public ``verimail_webhooks`` module, exactly as a customer would, and
records what it saw; tests choose the status it answers with. The certificate names ``localhost`` and
``127.0.0.1``, so URLs using either verify, and a URL using any other name fails the hostname check.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import trustme

from verimail_webhooks import SignatureVerificationError, construct_event


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    verified: bool
    event: dict[str, Any] | None


@dataclass
class Receiver:
    """State shared with the handler threads; tests set ``secret``/``status`` and read ``received``."""

    ca: trustme.CA
    names: tuple[str, ...] = ("localhost", "127.0.0.1")
    secret: str = ""
    status: int = 200
    answer: bytes = b'{"ok": true}'
    extra_headers: dict[str, str] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None
    # When set, the first two requests wait for each other: proof that two senders were in flight at once.
    gate: threading.Barrier | None = None
    gate_met: bool = False
    # When set, the answer trickles out one byte every ``trickle`` seconds (a receiver that never finishes
    # answering, to hold a sender's thread); ``trickle_body`` sends the headers at once and trickles the body.
    trickle: float = 0.0
    trickle_body: bool = False
    # False: plain HTTP, as a developer's local receiver behind ``verimail_webhooks listen`` (the CA unused).
    tls: bool = True

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def url(self, host: str = "localhost", path: str = "/hooks") -> str:
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}{path}"

    def record(self, headers: dict[str, str], body: bytes) -> None:
        try:
            event: dict[str, Any] | None = construct_event(body, headers, self.secret)
            verified = True
        except (SignatureVerificationError, ValueError):
            event, verified = None, False
        with self.lock:
            self.received.append(Received(headers, body, verified, event))

    def wait_at_gate(self) -> None:
        gate = self.gate
        if gate is None:
            return
        try:
            gate.wait(timeout=10)
        except threading.BrokenBarrierError:
            return
        self.gate, self.gate_met = None, True

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [item.event for item in self.received if item.event is not None]

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.record(dict(self.headers.items()), body)
                receiver.wait_at_gate()
                if receiver.trickle:
                    self.trickle_answer()
                    return
                self.send_response(receiver.status)
                for name, value in receiver.extra_headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def trickle_answer(self) -> None:
                head = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
                if receiver.trickle_body:
                    self.wfile.write(head)
                    self.wfile.flush()
                payload = b"x" * 2000 if receiver.trickle_body else head
                try:
                    for byte in payload:  # bounded: about 2000 x trickle seconds at most
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(receiver.trickle)
                except OSError:  # the sender gave up and closed the connection, as it should
                    return

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True  # a trickling handler must not hold up the test's end
        if self.tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.ca.issue_cert(*self.names).configure_cert(context)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def body_of(received: Received) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(received.body)
    return parsed
