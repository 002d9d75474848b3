"""A runnable webhook receiver: verifies each delivery, drops duplicates, ignores unknown event types.

    python examples/webhook_receiver.py --secret whsec_... --port 8443 --certfile cert.pem --keyfile key.pem

verimail delivers to HTTPS URLs only, so the receiver serves TLS (any certificate your clients trust; for
local development, ``WEBHOOK_ALLOW_LOOPBACK=true`` plus ``REQUESTS_CA_BUNDLE`` pointing at your test CA). It
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
from typing import Any, ClassVar

from verimail_webhooks import EVENT_TYPES, SignatureVerificationError, construct_event

# A real receiver lists only the types it acts on; anything else is acknowledged and ignored.
HANDLED_TYPES = frozenset(EVENT_TYPES)


class ReceiverHandler(BaseHTTPRequestHandler):
    secret: ClassVar[str] = ""
    seen_ids: ClassVar[set[str]] = set()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            event = construct_event(body, dict(self.headers.items()), self.secret)
        except (SignatureVerificationError, ValueError) as error:
            self._answer(400, {"error": str(error)})
            return
        if event["id"] not in self.seen_ids and event["type"] in HANDLED_TYPES:
            self.seen_ids.add(event["id"])
            handle(event)
        self._answer(200, {"received": True})

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


def serve(secret: str, host: str, port: int, certfile: str, keyfile: str) -> None:
    ReceiverHandler.secret = secret
    server = ThreadingHTTPServer((host, port), ReceiverHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certfile, keyfile)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening on https://{host}:{server.server_port}/", file=sys.stderr, flush=True)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--secret", required=True, help="the endpoint's signing secret (whsec_...)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8443)
    parser.add_argument("--certfile", required=True)
    parser.add_argument("--keyfile", required=True)
    args = parser.parse_args()
    serve(args.secret, args.host, args.port, args.certfile, args.keyfile)


if __name__ == "__main__":
    main()
