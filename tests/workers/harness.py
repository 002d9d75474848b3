"""Real processes for end-to-end job tests: a Celery worker (gevent pool) and beat (the sweeper's clock)
on this run's database, Redis prefix and mail lab, and the API served over real HTTP.

Test modules import the fixtures they need from here (``from tests.workers.harness import live_api, worker``).
Workers are module-scoped: a module that kills its worker owns it, and no other worker steals its tasks.
Every process started here is stopped by its own PID.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from werkzeug.serving import BaseWSGIServer, make_server

from maillab import MailLab
from services import broker
from services.probing import fleet_engine
from settings import get_settings
from tests.fixtures.db import create_test_app

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60.0
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


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, no message returned to the queue, leases left to expire."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def start_worker(
    env: dict[str, str], name: str, *, concurrency: int = 20, queues: str = "default,probes,webhooks"
) -> Worker:
    """``celery worker`` on every queue with a gevent pool; returns once it says it is ready."""
    command = [
        "worker",
        "--queues",
        queues,
        "--pool",
        "gevent",
        "--concurrency",
        str(concurrency),
        "--hostname",
        f"{name}@%h",
        "--without-gossip",
        "--without-mingle",
    ]
    return _start(env, name, command, ready=" ready.")


def start_beat(env: dict[str, str], name: str) -> Worker:
    """``celery beat``: the job sweeper's clock (a gevent worker cannot embed it)."""
    folder = Path(tempfile.mkdtemp(prefix=f"vm-{name}-beat-"))
    return _start(env, name, ["beat", "--schedule", str(folder / "schedule")], ready="beat: Starting")


def _start(env: dict[str, str], name: str, arguments: list[str], *, ready: str) -> Worker:
    log = Path(tempfile.mkdtemp(prefix=f"vm-{name}-")) / "celery.log"
    command = [sys.executable, "-m", "celery", "--app", "workers", *arguments, "--loglevel", "INFO"]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    started = Worker(process, log)
    _wait_ready(started, ready)
    return started


def _wait_ready(worker: Worker, ready: str) -> None:
    give_up = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < give_up:
        text = worker.log.read_text(errors="replace")
        if ready in text:
            return
        if worker.process.poll() is not None:
            raise RuntimeError(f"worker exited:\n{text[-4000:]}")
        time.sleep(0.2)
    worker.stop()
    raise RuntimeError(f"worker not ready:\n{worker.log.read_text(errors='replace')[-4000:]}")


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


@dataclass
class Gunicorn:
    """``gunicorn`` serving ``web:create_app()`` with the project's gunicorn.conf.py on a free port."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path

    def worker_pids(self) -> list[int]:
        """The PIDs of gunicorn's worker processes (children of the arbiter we started)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_gunicorn(env: dict[str, str], folder: Path, **settings: str) -> Gunicorn:
    """One gunicorn worker on 127.0.0.1 with ``env`` and ``settings`` (environment variables) on top;
    returns once it answers ``/health``. No control socket: its default path is shared machine-wide."""
    port = free_port()
    log = folder / "gunicorn.log"
    values = env | {"PORT": str(port), "WEB_CONCURRENCY": "1", "APP_ENV": "development"} | settings
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"]
    command += ["--bind", f"127.0.0.1:{port}", "--no-control-socket", "web:create_app()"]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=values, stdout=sink, stderr=sink)
    served = Gunicorn(process, f"http://127.0.0.1:{port}", log)
    give_up = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < give_up:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{log.read_text(errors='replace')[-4000:]}")
        try:  # the first request waits for the worker to boot and import the app
            requests.get(f"{served.base_url}/health", timeout=READY_TIMEOUT)
            return served
        except requests.ConnectionError:
            time.sleep(0.2)
    served.stop()
    raise RuntimeError("gunicorn did not answer")
