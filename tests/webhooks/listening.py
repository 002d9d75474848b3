"""``python -m verimail_webhooks listen`` as a developer runs it: a real subprocess against the API served by
gunicorn (``web`` fixture) with a Celery worker and beat making the events (``worker``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from tests.processes import ROOT, Gunicorn, start_gunicorn
from tests.webhooks.receiver import Receiver
from tests.workers.harness import beat, job_env, worker

__all__ = ["beat", "job_env", "worker"]
SECRET = re.compile(r"signing secret is (whsec_[A-Za-z0-9_-]+)")
READY_SECONDS = 30.0


@pytest.fixture(scope="module")
def web(job_env: dict[str, str]) -> Iterator[Gunicorn]:
    started = start_gunicorn(job_env, Path(tempfile.mkdtemp(prefix="vm-listen-")))
    yield started
    started.stop()


@pytest.fixture
def local_receiver() -> Iterator[Receiver]:
    """A plain-HTTP receiver on loopback, as on a laptop (the service itself would refuse it)."""
    receiver = Receiver(ca=trustme.CA(), tls=False)
    receiver.start()
    yield receiver
    receiver.stop()


@dataclass
class Listen:
    """One ``listen`` process: its output so far, and the secret it printed."""

    proc: subprocess.Popen[bytes]
    log: Path
    secret: str = ""

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        """Ctrl-C, as a developer stops it; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(30)


def start_listen(api_url: str, key: str, forward_to: str, *extra: str) -> Listen:
    """Start ``listen`` with ``key`` in the environment; returns once it printed its signing secret."""
    log = Path(tempfile.mkdtemp(prefix="vm-listen-cli-")) / "listen.log"
    command = [sys.executable, "-m", "verimail_webhooks", "listen", "--forward-to", forward_to]
    command += ["--api-url", api_url, "--poll-seconds", "0.2", *extra]
    env = {**os.environ, "VERIMAIL_API_KEY": key}
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    listen = Listen(proc, log)
    give_up = time.monotonic() + READY_SECONDS
    while not (found := SECRET.search(listen.output())):
        if proc.poll() is not None or time.monotonic() > give_up:
            listen.stop()
            raise AssertionError(f"listen did not start:\n{listen.output()}")
        time.sleep(0.05)
    listen.secret = found[1]
    return listen


@pytest.fixture
def listens() -> Iterator[list[Listen]]:
    """The ``listen`` processes a test starts (append them); each is stopped at the end."""
    started: list[Listen] = []
    yield started
    for listen in started:
        listen.stop()
