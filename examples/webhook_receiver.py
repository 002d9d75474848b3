"""A runnable webhook receiver: verifies each delivery, drops duplicates, ignores unknown event types.

    python examples/webhook_receiver.py --secret whsec_... --port 8443 --certfile cert.pem --keyfile key.pem
    python -m examples.webhook_receiver --secret-file listen.secret --port 4242  (from the repository root)

verimail delivers to HTTPS URLs only, so a receiver on the internet serves TLS (any certificate your clients
trust). On your own machine, ``python -m verimail_webhooks listen --forward-to http://127.0.0.1:4242/...
--secret-file listen.secret`` forwards the events instead, signed the same way: without ``--certfile`` this
receiver serves plain HTTP on loopback for it, and ``--secret-file`` is read at each request, so the
receiver may start before the listener has written it (docs/sandbox.md, "Webhooks on your machine"). It
prints one JSON line per accepted event and answers 2xx quickly: do slow work after answering, because
verimail waits at most 30 seconds and then retries. The duplicate filter is in memory for brevity; a real
receiver keeps the event ids it has handled in its database.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from verimail_webhooks import EVENT_TYPES, SignatureVerificationError, construct_event

# A real receiver lists only the types it acts on; anything else is acknowledged and ignored.
HANDLED_TYPES = frozenset(EVENT_TYPES)


class ReceiverHandler(BaseHTTPRequestHandler):
    secret: ClassVar[str] = ""
    secret_file: ClassVar[Path | None] = None
    seen_ids: ClassVar[set[str]] = set()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            event = construct_event(body, dict(self.headers.items()), self._secret())
        except (SignatureVerificationError, ValueError) as error:
            self._answer(400, {"error": str(error)})
            return
        if event["id"] not in self.seen_ids and event["type"] in HANDLED_TYPES:
            self.seen_ids.add(event["id"])
            handle(event)
        self._answer(200, {"received": True})

    def _secret(self) -> str:
        if self.secret_file is None:
            return self.secret
        try:
            return self.secret_file.read_text().strip()
        except FileNotFoundError:
            raise ValueError(f"no signing secret in {self.secret_file} yet") from None

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"receiver: {format % args}\n")


def handle(event: dict[str, Any]) -> None:
    """Your business logic goes here; this example prints the event as one JSON line."""
    print(json.dumps({"id": event["id"], "type": event["type"], "data": event["data"]}), flush=True)


def serve(args: argparse.Namespace) -> None:
    ReceiverHandler.secret = args.secret or ""
    ReceiverHandler.secret_file = Path(args.secret_file) if args.secret_file else None
    server = ThreadingHTTPServer((args.host, args.port), ReceiverHandler)
    scheme = "http"
    if args.certfile:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.certfile, args.keyfile)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    print(f"listening on {scheme}://{args.host}:{server.server_port}/", file=sys.stderr, flush=True)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    secret = parser.add_mutually_exclusive_group(required=True)
    secret.add_argument("--secret", help="the endpoint's signing secret (whsec_...)")
    secret.add_argument(
        "--secret-file", help="a file holding it, read at each request (listen --secret-file)"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8443)
    parser.add_argument("--certfile", help="serve HTTPS with this certificate (plain HTTP without it)")
    parser.add_argument("--keyfile")
    args = parser.parse_args()
    if bool(args.certfile) != bool(args.keyfile):
        parser.error("--certfile and --keyfile go together")
    serve(args)


if __name__ == "__main__":
    main()
