"""Real processes for end-to-end job tests: a Celery worker (gevent pool) and beat (the sweeper's clock)
on this run's database, Redis prefix and mail lab, and the API served over real HTTP.

Test modules import the fixtures they need from here (``from tests.workers.harness import live_api, worker``).
Workers are module-scoped: a module that kills its worker owns it, and no other worker steals its tasks.
The processes themselves are started and stopped by ``tests.processes``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from werkzeug.serving import BaseWSGIServer, make_server

from maillab import MailLab
from services import broker
from services.probing.fleet import fleet_engine
from settings import get_settings
from tests.fixtures.db import create_test_app
from tests.processes import Gunicorn, Process, free_port, start_beat, start_gunicorn, start_worker

# What the ``worker`` and ``beat`` fixtures yield: a started Celery process.
Worker = Process
# tests/faults imports its launchers from here too.
__all__ = [
    "JOB_ENV",
    "PATIENT_SMTP",
    "Api",
    "Gunicorn",
    "Worker",
    "beat",
    "free_port",
    "job_env",
    "live_api",
    "poll_until_finished",
    "start_beat",
    "start_gunicorn",
    "start_worker",
    "wait_for",
    "worker",
]

# Short leases and sweeps so a killed worker's groups are taken over within seconds, not minutes.
JOB_ENV = {
    "ALLOW_TEST_DOMAINS": "true",
    "DNS_TIMEOUT": "1",
    "SMTP_HELO_HOST": "prober.verimail.test",
    "SMTP_MAIL_FROM": "probe@verimail.test",
    "SMTP_TIMEOUT": "3",
    "SMTP_CONNECT_TIMEOUT": "1",
    "SMTP_BANNER_TIMEOUT": "1",
    "SMTP_DEADLINE": "10",
    "SMTP_GREYLIST_RETRY_AFTER": "2",
    "JOB_LEASE_SECONDS": "3",
    "JOB_REQUEUE_SECONDS": "5",
    "JOB_SWEEP_SECONDS": "1",
    "BATCH_SYNC_WAIT_SECONDS": "20",
    "VALIDATE_WAIT_SECONDS": "20",
}
# On top of JOB_ENV, for a worker that waits out slow.test's 1.5 s replies (JOB_ENV gives up on its banner).
PATIENT_SMTP = {"SMTP_BANNER_TIMEOUT": "5", "SMTP_TIMEOUT": "5", "SMTP_DEADLINE": "40"}


@pytest.fixture(scope="session")
def job_env(database_url: str, mail_lab: MailLab) -> Iterator[dict[str, str]]:
    """This process's environment pointed at the lab with the short job timings; what workers inherit."""
    values = {**JOB_ENV, **mail_lab.env()}
    with pytest.MonkeyPatch.context() as env:
        for name, value in values.items():
            env.setenv(name, value)
        _forget_settings()
        yield dict(os.environ)
    _forget_settings()


def _forget_settings() -> None:
    """Settings, the shared engine and the publishing Celery app are built once per process."""
    get_settings.cache_clear()
    fleet_engine.shared_engine.cache_clear()
    broker.publisher.cache_clear()


@pytest.fixture(scope="module")
def beat(job_env: dict[str, str]) -> Iterator[Worker]:
    started = start_beat(job_env, f"b{os.getpid()}")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    started = start_worker(job_env, f"w{os.getpid()}")
    yield started
    started.stop()


@dataclass
class Api:
    """The API at ``base_url`` over real HTTP; ``call("post", "/validate", persona, json=...)``."""

    base_url: str
    session: requests.Session

    def call(self, method: str, path: str, persona: Any = None, **kwargs: Any) -> requests.Response:
        headers = {**(persona.headers if persona else {}), **kwargs.pop("headers", {})}
        return self.session.request(method, self.base_url + path, headers=headers, timeout=60, **kwargs)


@pytest.fixture(scope="session")
def live_api(job_env: dict[str, str]) -> Iterator[Api]:
    server: BaseWSGIServer = make_server("127.0.0.1", 0, create_test_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-api", daemon=True)
    thread.start()
    with requests.Session() as session:
        yield Api(f"http://127.0.0.1:{server.server_port}", session)
    server.shutdown()
    thread.join(10)


def wait_for(live_api: Api, persona: Any, batch_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """Poll the results URL until the job has finished; its body."""
    return poll_until_finished(live_api, persona, f"/batches/{batch_id}/results?limit=1000", timeout)


def poll_until_finished(live_api: Api, persona: Any, path: str, timeout: float) -> dict[str, Any]:
    """GET ``path`` until the job it shows has finished (or ``timeout`` passed); the last body."""
    give_up = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = live_api.call("get", path, persona).json()
        if body["status"] in ("completed", "cancelled", "failed") or time.monotonic() > give_up:
            return body
        time.sleep(0.2)
