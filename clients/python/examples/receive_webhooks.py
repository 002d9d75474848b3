"""A webhook receiver on the standard library: ``VERIMAIL_WEBHOOK_SECRET=whsec_... python
examples/receive_webhooks.py`` listens on 127.0.0.1:8765 and prints each verified event."""

import os
from http.server import BaseHTTPRequestHandler, HTTPServer

from verimail.webhooks import SignatureVerificationError, construct_event

SECRET = os.environ["VERIMAIL_WEBHOOK_SECRET"]


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            event = construct_event(body, dict(self.headers), SECRET)
        except SignatureVerificationError as error:
            self.send_response(400)
            self.end_headers()
            print("refused:", error)
            return
        print(event["type"], event["id"])
        self.send_response(200)
        self.end_headers()


HTTPServer(("127.0.0.1", 8765), Receiver).serve_forever()
