"""A runnable sign-up form with the verimail widget, and the server side that trusts nothing the page says.

    VERIMAIL_URL=http://127.0.0.1:8000 VERIMAIL_PUBLISHABLE_KEY=pk_live_... VERIMAIL_SECRET_KEY=sk_live_... \\
        python examples/signup_form.py --port 8040

Open http://127.0.0.1:8040 (that origin must be in the key's allowed origins). The page
(``signup_form.html``) loads ``/widget.js`` from the service, which checks the address when the visitor
leaves the field and puts a verdict token into the form. On submit, this server confirms the token with
the secret key (``POST /validate/confirm``): a confirmed, authoritative verdict is the service's word,
whatever the page's script was made to do. No token, one refused (forged, replayed, expired, about another
address), or one whose verdict is not authoritative (the page was throttled, or answered before the check
finished: a bot that exhausts its requests gets just that), and the server validates the address itself
with ``POST /validate``. Standard library only.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from string import Template
from typing import Any, ClassVar
from urllib.parse import parse_qs

PAGE = Template((Path(__file__).with_name("signup_form.html")).read_text(encoding="utf-8"))
REFUSED = {"invalid"}  # what this site refuses, matching the page's data-email-check-block
REFUSED_FLAGS = ("disposable",)


def call(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST ``body`` to the service with the secret key (never sent to a browser)."""
    request = urllib.request.Request(  # noqa: S310 - our own configured http(s) URL
        os.environ["VERIMAIL_URL"] + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-API-Key": os.environ["VERIMAIL_SECRET_KEY"]},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - our own configured URL
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def judge(email: str, token: str) -> tuple[str, dict[str, Any]]:
    """Where the verdict came from, and the verdict: confirmed from the page's token when that verdict is
    authoritative (a finished check), else our own check."""
    if token:
        status, confirmed = call("/validate/confirm", {"token": token, "email": email})
        if status == 200 and confirmed.get("authoritative") is True:
            return "confirmed", confirmed
    status, result = call("/validate", {"email": email})
    if status != 200:  # the service is unreachable or busy: accept, as the widget does
        return "unchecked", {"verdict": "unknown"}
    checks = result.get("checks", {})
    disposable = checks.get("disposable", {}).get("metadata", {}).get("isDisposable")
    return "checked by the server", {"verdict": result["severity"], "disposable": disposable}


def accepted(verdict: dict[str, Any]) -> bool:
    return verdict["verdict"] not in REFUSED and not any(verdict.get(flag) for flag in REFUSED_FLAGS)


class SignUpHandler(BaseHTTPRequestHandler):
    block: ClassVar[str] = "invalid disposable"
    budget: ClassVar[str] = "3"

    def do_GET(self) -> None:
        values = {
            "service": os.environ["VERIMAIL_URL"],
            "key": os.environ["VERIMAIL_PUBLISHABLE_KEY"],
            "block": self.block,
            "timeout": self.budget,
        }
        self._page(200, PAGE.substitute({name: html.escape(value) for name, value in values.items()}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        form = parse_qs(self.rfile.read(length).decode())
        email = form.get("email", [""])[0]
        source, verdict = judge(email, form.get("email_check_token", [""])[0])
        outcome = "Welcome" if accepted(verdict) else "Sign-up refused"
        flags = "".join(f", {flag}" for flag in REFUSED_FLAGS if verdict.get(flag))
        line = f"{email}: {verdict['verdict']}{flags} ({source})"
        print(json.dumps({"email": email, "source": source, "verdict": verdict["verdict"]}), flush=True)
        body = f'<h1>{outcome}</h1><p data-testid="outcome">{html.escape(line)}</p>'
        self._page(
            200 if accepted(verdict) else 422,
            f'<!doctype html><html lang="en"><title>{outcome}</title>{body}',
        )

    def _page(self, status: int, text: str) -> None:
        payload = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"signup-form: {format % args}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8040)
    parser.add_argument("--block", default=SignUpHandler.block, help="the page's data-email-check-block")
    parser.add_argument("--timeout", default=SignUpHandler.budget, help="the widget's time budget, seconds")
    arguments = parser.parse_args()
    SignUpHandler.block, SignUpHandler.budget = arguments.block, arguments.timeout
    server = ThreadingHTTPServer((arguments.host, arguments.port), SignUpHandler)
    print(f"sign-up form on http://{arguments.host}:{arguments.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
