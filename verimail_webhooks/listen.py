"""``python -m verimail_webhooks listen --forward-to URL``: receive your account's events on this machine.

Modelled on Stripe's ``stripe listen``: this process opens an event listener with your API key
(``POST /webhooks/listeners``, scope ``webhooks:read``), polls the events waiting for it, POSTs each one to
``--forward-to`` exactly as a webhook delivery is sent (the same body bytes, ``X-Service-Timestamp`` and
``X-Service-Signature`` made with the listener's signing secret, which it prints), then acknowledges them.
The service never connects to your machine, so a local ``http://127.0.0.1`` receiver works while production
keeps refusing private addresses. A test key (``sk_test_...``) receives test-mode events, a live key live
ones. Each event is forwarded once, whatever the receiver answers; Ctrl-C closes the listener.

Standard library only, like the rest of this package.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from types import FrameType
from typing import Any, TextIO

from verimail_webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER, compute_signature

DEFAULT_API_URL = "http://127.0.0.1:8000"
POLL_SECONDS = 1.0
RECONNECT_SECONDS = 2.0
FORWARD_TIMEOUT = 30.0
API_TIMEOUT = 30.0
USER_AGENT = "verimail-listen/1"


class ListenError(Exception):
    """The API refused (``status``) or could not be reached (``status`` None): the message says what."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Api:
    """The verimail API as this process calls it: a base URL and a key."""

    base_url: str
    key: str

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(  # noqa: S310 - the API URL is the user's own choice
            self.base_url.rstrip("/") + path, data=data, method=method, headers=self._headers(body)
        )
        try:
            with urllib.request.urlopen(request, timeout=API_TIMEOUT) as response:  # noqa: S310
                answer: dict[str, Any] = json.loads(response.read() or b"{}")
                return answer
        except urllib.error.HTTPError as error:
            raise ListenError(f"{method} {path}: {error.code} {_message(error.read())}", error.code) from None
        except (urllib.error.URLError, OSError) as error:
            raise ListenError(f"cannot reach {self.base_url}: {error}") from None

    def _headers(self, body: dict[str, Any] | None) -> dict[str, str]:
        headers = {"X-API-Key": self.key, "User-Agent": USER_AGENT}
        return headers | ({"Content-Type": "application/json"} if body is not None else {})


def _message(raw: bytes) -> str:
    try:
        return str(json.loads(raw)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return raw.decode(errors="replace")[:300]


def signed_request(url: str, secret: str, event: dict[str, Any]) -> urllib.request.Request:
    """The POST a webhook endpoint would get for ``event``: the same compact JSON, signed now."""
    body = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        TIMESTAMP_HEADER: timestamp,
        SIGNATURE_HEADER: compute_signature(secret, timestamp, body),
    }
    return urllib.request.Request(url, data=body, method="POST", headers=headers)  # noqa: S310


def forward(url: str, secret: str, event: dict[str, Any]) -> str:
    """POST one event to the local receiver; what it answered, as a line for the terminal."""
    try:
        with urllib.request.urlopen(signed_request(url, secret, event), timeout=FORWARD_TIMEOUT) as answer:  # noqa: S310
            return f"[{answer.status}]"
    except urllib.error.HTTPError as error:
        return f"[{error.code}]"
    except (urllib.error.URLError, OSError) as error:
        return f"[failed: {getattr(error, 'reason', error)}]"


@dataclass
class Listener:
    api: Api
    forward_to: str
    out: TextIO
    listener_id: str = ""
    secret: str = ""

    def open(self, events: list[str] | None) -> dict[str, Any]:
        opened = self.api.call("POST", "/webhooks/listeners", {"events": events} if events else {})
        self.listener_id, self.secret = opened["id"], opened["secret"]
        return opened

    def forward_waiting(self) -> int:
        """Forward and acknowledge every event waiting now; how many."""
        page = self.api.call("GET", f"/webhooks/listeners/{self.listener_id}/events")
        for event in page["data"]:
            outcome = forward(self.forward_to, self.secret, event)
            self.say(f"{event['type']} [{event['id']}] --> POST {self.forward_to} {outcome}")
        if page["data"]:
            ids = [event["id"] for event in page["data"]]
            self.api.call("POST", f"/webhooks/listeners/{self.listener_id}/acknowledge", {"eventIds": ids})
        return len(page["data"])

    def close(self) -> None:
        if self.listener_id:
            try:
                self.api.call("DELETE", f"/webhooks/listeners/{self.listener_id}")
            except ListenError as error:
                self.say(f"could not close the listener: {error}")

    def say(self, line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')}  {line}", file=self.out, flush=True)


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    key = args.api_key or os.environ.get("VERIMAIL_API_KEY", "")
    if not key:
        sys.stderr.write("Give an API key: --api-key sk_test_... or VERIMAIL_API_KEY.\n")
        return 2
    listener = Listener(Api(args.api_url, key), args.forward_to, out)
    _stop_on_sigterm()
    try:
        opened = listener.open(args.events.split(",") if args.events else None)
        mode = "live" if opened["livemode"] else "test-mode"
        print(f"Ready. Forwarding {mode} events to {args.forward_to} (listener {opened['id']}).", file=out)
        if args.secret_file:
            _write_secret(args.secret_file, opened["secret"])
        print(f"Your webhook signing secret is {opened['secret']} (Ctrl-C to stop).", file=out, flush=True)
        while True:
            if not _forwarded_some(listener):
                time.sleep(args.poll_seconds)
    except ListenError as error:
        sys.stderr.write(f"listen: {error}\n")
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        listener.close()


def _forwarded_some(listener: Listener) -> bool:
    """One round; an API out of reach (a restart of the service) is waited for, a refusal ends the run."""
    try:
        return listener.forward_waiting() > 0
    except ListenError as error:
        if error.status is not None:
            raise
        listener.say(f"{error}; trying again in {RECONNECT_SECONDS:g} s")
        time.sleep(RECONNECT_SECONDS)
        return False


def _write_secret(path: str, secret: str) -> None:
    """Readable by this user only: the secret signs what the receiver will trust."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(secret + "\n")


def _stop_on_sigterm() -> None:
    """SIGTERM ends the loop as Ctrl-C does, so the listener is closed either way."""

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("listen", help="forward your account's events to a local URL")
    parser.add_argument(
        "--forward-to", required=True, help="where to POST each event, e.g. http://127.0.0.1:4242/hook"
    )
    parser.add_argument("--api-key", help="the key to listen with (default: $VERIMAIL_API_KEY)")
    parser.add_argument(
        "--api-url",
        default=os.environ.get("VERIMAIL_BASE_URL", DEFAULT_API_URL),
        help=f"the API (default: $VERIMAIL_BASE_URL or {DEFAULT_API_URL})",
    )
    parser.add_argument("--events", help="comma-separated event types (default: every type)")
    parser.add_argument("--secret-file", help="also write the signing secret to this file (mode 600)")
    parser.add_argument("--poll-seconds", type=float, default=POLL_SECONDS, help=argparse.SUPPRESS)
    parser.set_defaults(command=run)
