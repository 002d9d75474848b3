"""The whole service as separate processes on stores this test owns, so a test may break one of them.

``OwnPostgres`` is a throwaway cluster (Debian's binaries, trust auth, a free loopback port) that a test
may stop and start; the Redis counterpart is ``tests.limits.test_redis_restart.OwnRedis``. ``Stack`` is
gunicorn, a Celery worker (gevent, every queue) and beat, started together and pointed at those stores
with the short job timings of ``tests.workers.harness``. The shared Postgres (5432) and Redis (6379) are
never stopped: other people use them. Every process is stopped by its own PID.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import requests

from tests.processes import ALL_QUEUES
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Gunicorn, Worker, free_port, start_beat, start_gunicorn, start_worker

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def postgres_bin() -> Path:
    """The newest Debian Postgres server binaries (``postgresql-NN`` packages install them here)."""
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(Path(path).parent.name))
    if not folders:
        raise RuntimeError("no Postgres server binaries under /usr/lib/postgresql/*/bin")
    return Path(folders[-1])


class OwnPostgres:
    """A Postgres cluster in a temporary folder; ``stop(mode)`` and ``start()`` as often as a test likes."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        # Not under pytest's tmp_path: that folder is private to root, and the server may not run as root.
        self.folder = Path(tempfile.mkdtemp(prefix="vm-own-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/verimail"
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.folder, self.user)

    def create(self) -> None:
        """initdb, start, and an empty ``verimail`` database (the release step migrates it)."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "verimail")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.folder / "postgres.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """``fast`` ends every session and shuts down cleanly; ``immediate`` is a crash (recovery at
        the next start)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        status = [str(self.bin / "pg_ctl"), "-D", str(self.data), "status"]
        return subprocess.run(status, user=self.user, capture_output=True, check=False).returncode == 0

    def destroy(self) -> None:
        if self.data.exists() and self.running():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, program: str, *arguments: str) -> None:
        command = [str(self.bin / program), *arguments]
        done = subprocess.run(command, user=self.user, capture_output=True, check=False, timeout=90)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stderr.decode(errors='replace')}")


def migrate(env: dict[str, str]) -> None:
    """The Procfile's release step, as its own process, on the database ``env`` names."""
    command = [sys.executable, "-m", "alembic", "-c", "models/alembic.ini", "upgrade", "head"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"migrations failed: {done.stderr.decode(errors='replace')[-4000:]}")


@dataclass
class Stack:
    """gunicorn, one worker on every queue and beat; ``call`` speaks to the API over HTTP."""

    web: Gunicorn
    worker: Worker
    beat: Worker
    session: requests.Session
    env: dict[str, str]
    marks: dict[Path, int] = field(default_factory=dict)

    def call(self, method: str, path: str, persona: Any = None, **kwargs: Any) -> requests.Response:
        headers = {**(persona.headers if persona else {}), **kwargs.pop("headers", {})}
        url = self.web.base_url + path
        return self.session.request(method, url, headers=headers, timeout=90, **kwargs)

    def subscribe(self, persona: Any, receiver: Receiver) -> None:
        """An endpoint on the live receiver for ``batch.completed``, made through the API as a customer
        would; the receiver learns its secret to verify signatures."""
        hook = {"url": receiver.url(), "events": ["batch.completed"]}
        made = self.call("post", "/webhooks", persona, json=hook)
        assert made.status_code == 201, made.text
        receiver.secret = made.json()["secret"]

    def mark(self) -> None:
        """From here on, ``logs`` shows only what the processes log after this point (a module's tests
        share one stack, and each looks for its own fault's traces)."""
        self.marks = {path: path.stat().st_size for path in (self.web.log, self.worker.log)}

    def logs(self) -> str:
        """What the web process and the worker have logged since the last ``mark``."""
        return self._since_mark(self.web.log) + self.worker_logs()

    def worker_logs(self) -> str:
        """What the worker has logged since the last ``mark``."""
        return self._since_mark(self.worker.log)

    def _since_mark(self, path: Path) -> str:
        with path.open("rb") as log:
            log.seek(self.marks.get(path, 0))
            return log.read().decode(errors="replace")

    def kill_worker(self) -> None:
        """SIGKILL the worker, as the OOM killer or a lost host would, and start another in its place (as a
        supervisor would): its lanes' holds and its claims are left behind, its leases unexpired."""
        self.worker.kill()
        self.worker = start_worker(self.env, f"rescuer{os.getpid()}", queues=ALL_QUEUES)

    def stop(self) -> None:
        for process in (self.web, self.worker, self.beat):
            process.stop()
        self.session.close()


def start_stack(env: dict[str, str], folder: Path, name: str) -> Stack:
    """The three processes started at once (each takes seconds to import), returned once all are ready;
    on a failure the ones that did start are stopped."""
    starters: list[Callable[[], Any]] = [
        lambda: start_gunicorn(env, folder),
        lambda: start_worker(env, f"{name}-w{os.getpid()}", queues=ALL_QUEUES),
        lambda: start_beat(env, f"{name}-b{os.getpid()}"),
    ]
    with ThreadPoolExecutor(len(starters)) as pool:
        futures = [pool.submit(starter) for starter in starters]
    started = [future.result() for future in futures if future.exception() is None]
    if len(started) < len(starters):
        for process in started:
            process.stop()
        raise next(error for future in futures if (error := future.exception()) is not None)
    web, worker, beat = started
    return Stack(web, worker, beat, requests.Session(), env)


def running_stack(env: dict[str, str], folders: Any, name: str) -> Iterator[Stack]:
    """A module fixture's body: the stack on ``env`` (logs in a folder of pytest's ``folders``) for the
    module's tests, stopped after them."""
    started = start_stack(env, folders.mktemp(name), name)
    try:
        yield started
    finally:
        started.stop()


def poll(read: Callable[[], T], done: Callable[[T], bool], timeout: float, pause: float = 0.1) -> T:
    """Call ``read`` until ``done`` holds for what it returns, or ``timeout`` seconds passed; the last value.
    Readiness polling with a deadline, never a timed assertion: the caller asserts on the value."""
    give_up = time.monotonic() + timeout
    value = read()
    while not done(value) and time.monotonic() < give_up:
        time.sleep(pause)
        value = read()
    return value
