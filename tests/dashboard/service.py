"""The real service for browser tests: gunicorn (the project's gunicorn.conf.py), a Celery worker and beat,
on this run's database, Redis prefix and mail lab, with an SMTP mailbox and an HTTPS webhook receiver on
loopback. Started once per session; every process is stopped by its own PID."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
import trustme

from tests.mail.mailbox import Mailbox, free_port, start_server
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Worker, start_beat, start_worker

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60.0
# The service starts once for the package (about 30 s, more on a loaded machine) within the first test's
# time limit, and browser steps wait for workers: each dashboard module sets this limit.
TIME_LIMIT = pytest.mark.timeout(300)


@dataclass
class Service:
    base_url: str
    mailbox: Mailbox
    receiver: Receiver
    env: dict[str, str]
    log: Path


# The service of the running package, for steps that read what it emailed (``steps.emailed_path``).
RUNNING: list[Service] = []


def start_gunicorn(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    # No control socket: its default path is shared by every gunicorn of the machine (other test runs).
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    with log.open("wb") as sink:
        return subprocess.Popen(
            [*command, "--no-control-socket", "web:create_app()"], cwd=ROOT, env=env, stdout=sink, stderr=sink
        )


def wait_serving(base_url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    give_up = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < give_up:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            requests.get(f"{base_url}/health", timeout=10)
            return
        except requests.ConnectionError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer")


@pytest.fixture(scope="package")
def service(job_env: dict[str, str]) -> Iterator[Service]:
    """gunicorn + worker + beat, all pointed at the mailbox (owner emails) and trusting the receiver's CA.

    Package-scoped: started once for the dashboard tests and stopped after the last of them, so this
    worker never takes the tasks of test modules that run later with their own workers.
    """
    folder = Path(tempfile.mkdtemp(prefix="vm-dashboard-"))
    ca = trustme.CA()
    bundle = folder / "test-ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    mailbox = Mailbox()
    smtp = start_server(mailbox)
    mailbox.url = f"smtp://127.0.0.1:{smtp.port}"
    receiver = Receiver(ca=ca)
    receiver.start()
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = job_env | {
        "PORT": str(port),
        "BASE_URL": base_url,
        "APP_ENV": "development",
        "WEB_CONCURRENCY": "1",
        "MAIL_SMTP_URL": mailbox.url,
        "WEBHOOK_ALLOW_LOOPBACK": "true",
        "REQUESTS_CA_BUNDLE": str(bundle),
    }
    processes: list[Worker] = []
    log = folder / "gunicorn.log"
    server = start_gunicorn(env, port, log)
    try:
        processes.append(start_beat(env, f"db{os.getpid()}"))
        processes.append(start_worker(env, f"dw{os.getpid()}", concurrency=10))
        wait_serving(base_url, server, log)
        running = Service(base_url, mailbox, receiver, env, log)
        RUNNING.append(running)
        yield running
        RUNNING.remove(running)
    finally:
        server.terminate()
        server.wait(timeout=30)
        for process in processes:
            process.stop()
        receiver.stop()
        smtp.stop()
