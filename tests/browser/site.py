"""The customer's site for the Chromium tests: ``examples/signup_form.py`` run as a customer would, on a
loopback origin of its own (127.0.0.2, or 127.0.0.3 for a page the key does not allow)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.fixtures.db import Persona

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "signup_form.py"


@dataclass(frozen=True)
class Site:
    origin: str
    process: subprocess.Popen[str]

    def sign_ups(self) -> str:
        """What the site printed so far (one JSON line per form submitted), once it has stopped."""
        assert self.process.stdout is not None
        return self.process.stdout.read()


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_site(origin: str, service_url: str, key: Persona, *arguments: str) -> Iterator[Site]:
    """The example at ``origin`` (``http://host:port``) with ``key``'s two halves; stopped by its PID."""
    host, port = origin.removeprefix("http://").split(":")
    env = os.environ | {
        "VERIMAIL_URL": service_url,
        "VERIMAIL_PUBLISHABLE_KEY": key.publishable,
        "VERIMAIL_SECRET_KEY": key.secret,
    }
    command = [sys.executable, str(EXAMPLE), "--host", host, "--port", port, *arguments]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        _wait_listening(host, int(port), process)
        yield Site(origin, process)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_listening(host: str, port: int, process: subprocess.Popen[str]) -> None:
    """Readiness polling, not a timed assertion: the example answers nothing until it is bound."""
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError("the example sign-up form exited")
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the example sign-up form did not start")
