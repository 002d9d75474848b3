"""The real service for browser tests: gunicorn (the project's gunicorn.conf.py), a Celery worker and beat,
on this run's database, Redis prefix and mail lab, with an SMTP mailbox and an HTTPS webhook receiver on
loopback. Started once per session by ``tests.processes``."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from tests.mail.mailbox import Mailbox, start_server
from tests.processes import Process, free_port, start_beat, start_gunicorn, start_worker
from tests.webhooks.receiver import Receiver

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
    web = start_gunicorn(env, folder, port=port, wait=False)  # it boots while the workers start
    processes: list[Process] = [web]
    try:
        processes.append(start_beat(env, f"db{os.getpid()}"))
        processes.append(start_worker(env, f"dw{os.getpid()}", concurrency=10))
        web.wait_ready()
        running = Service(base_url, mailbox, receiver, env, web.log)
        RUNNING.append(running)
        yield running
        RUNNING.remove(running)
    finally:
        for process in processes:
            process.stop()
        receiver.stop()
        smtp.stop()
