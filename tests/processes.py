"""Every long-running process the tests start, started one way: the Procfile's ``web`` (gunicorn),
``worker``, ``beat`` and ``flower``, and a ``redis-server`` of a test's own.

Each runs in a process group of its own with its output in a log file. A ``start_*`` function returns once
its process is ready (gunicorn and Flower answer HTTP, a worker logs that it consumes, beat that it ticks,
Redis answers PING); ``stop`` ends it and whatever it started, and signals only that group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
READY_TIMEOUT = 120.0  # a loaded 2-core machine has taken over 60 s to start a gevent worker
ALL_QUEUES = "default,probes,webhooks"
CELERY = [sys.executable, "-m", "celery", "--app", "workers"]
FLOWER_CONF = "--conf=workers/flowerconfig.py"
Started = TypeVar("Started", bound="Process")


def free_port() -> int:
    """A loopback port nobody listens on right now (the tiny race until the server binds it is accepted)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Process:
    """One started process: its log, when it is ready, and how long a clean stop may take."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    ready: Callable[[], bool]
    stop_seconds: float

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self) -> None:
        """Return once ``ready`` holds; if the process exits first, or is not ready within READY_TIMEOUT,
        it is stopped and the end of its log raised."""
        give_up = time.monotonic() + READY_TIMEOUT
        while not self.ready():
            if self.exited() or time.monotonic() > give_up:
                self.stop()
                status = self.popen.returncode
                raise RuntimeError(
                    f"{self.name} did not start (exit status {status}):\n{self.output()[-4000:]}"
                )
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM (gunicorn and Celery shut down warm), SIGKILL to the group if it outlives
        ``stop_seconds``; children it left behind are killed either way."""
        if self.popen.returncode is None:
            os.kill(self.popen.pid, signal.SIGTERM)
            _wait_exited(self.popen, self.stop_seconds)
        self._kill_group()

    def kill(self) -> None:
        """SIGKILL at once: no warm shutdown, no message returned to the queue, leases left to expire."""
        self._kill_group()

    def exited(self) -> bool:
        return self.popen.returncode is not None or _wait_exited(self.popen, 0)

    def _kill_group(self) -> None:
        # The group's id is the leader's PID, which the kernel cannot hand out again until the leader is
        # reaped: so the group is signalled while its leader is unreaped (running, or a zombie), never after.
        if self.popen.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(10)


@dataclass
class Served(Process):
    """A process that answers HTTP at ``base_url``."""

    base_url: str


@dataclass
class Gunicorn(Served):
    """``gunicorn`` serving ``web:create_app()`` with the project's gunicorn.conf.py."""

    def worker_pids(self) -> list[int]:
        """The PIDs of gunicorn's worker processes (children of the arbiter we started)."""
        children = Path(f"/proc/{self.popen.pid}/task/{self.popen.pid}/children")
        return [int(pid) for pid in children.read_text().split()]


@contextlib.contextmanager
def running(started: Started) -> Iterator[Started]:
    """``started`` for the length of a ``with`` block, then stopped (a module's own service or worker)."""
    try:
        yield started
    finally:
        started.stop()


def _wait_exited(popen: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether the process exits within ``seconds``, without reaping it (``WNOWAIT``)."""
    give_up = time.monotonic() + seconds
    while os.waitid(os.P_PID, popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        if time.monotonic() >= give_up:
            return False
        time.sleep(0.05)
    return True


def launch(
    kind: Callable[..., Started],
    name: str,
    command: list[str],
    env: Mapping[str, str] | None,
    log: Path,
    *,
    ready: Callable[[], bool],
    stop_seconds: float = 15.0,
    wait: bool = True,
    **fields: str,
) -> Started:
    """Start ``command`` in a process group of its own, its output in ``log``; once ready, unless told not
    to wait (the caller then calls ``wait_ready``)."""
    with log.open("wb") as sink:
        popen = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, process_group=0
        )
    started = kind(name, popen, log, ready, stop_seconds, **fields)
    if wait:
        started.wait_ready()
    return started


def log_says(log: Path, text: str) -> Callable[[], bool]:
    return lambda: text in log.read_text(errors="replace")


def answers_http(url: str) -> Callable[[], bool]:
    """Any HTTP answer will do (the first request waits while a web worker boots and imports the app)."""

    def answers() -> bool:
        try:
            requests.get(url, timeout=10)
        except (requests.ConnectionError, requests.Timeout):
            return False
        return True

    return answers


def start_gunicorn(
    env: Mapping[str, str], folder: Path, *, port: int | None = None, wait: bool = True, **settings: str
) -> Gunicorn:
    """One gunicorn worker on 127.0.0.1 (on ``port``, or a free one) with ``env`` and ``settings``
    (environment variables) on top; ready once it answers ``/health`` (``wait=False``: the caller starts
    other processes while it boots, then calls ``wait_ready``). No control socket: its default path is
    shared machine-wide."""
    port = port or free_port()
    values = {**env, "PORT": str(port), "WEB_CONCURRENCY": "1", "APP_ENV": "development", **settings}
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"]
    command += ["--bind", f"127.0.0.1:{port}", "--no-control-socket", "web:create_app()"]
    log = folder / "gunicorn.log"
    base_url = f"http://127.0.0.1:{port}"
    ready = answers_http(f"{base_url}/health")
    return launch(
        Gunicorn, "gunicorn", command, values, log, ready=ready, stop_seconds=30, wait=wait, base_url=base_url
    )


def _celery(*arguments: str) -> list[str]:
    return [*CELERY, *arguments, "--loglevel", "INFO"]


def start_worker(
    env: Mapping[str, str],
    name: str,
    *,
    concurrency: int = 20,
    queues: str = ALL_QUEUES,
    pool: str = "gevent",
    beat_schedule: Path | None = None,
) -> Process:
    """``celery worker`` (a gevent pool on every queue unless told otherwise, beat embedded if given a
    schedule file), named ``name@host``; ready once it says it consumes."""
    arguments = ["worker", "--queues", queues, "--pool", pool, "--concurrency", str(concurrency)]
    arguments += ["--hostname", f"{name}@%h", "--without-gossip", "--without-mingle"]
    if beat_schedule is not None:
        arguments += ["--beat", "--schedule", str(beat_schedule)]
    log = Path(tempfile.mkdtemp(prefix=f"vm-{name}-")) / "celery.log"
    return launch(Process, name, _celery(*arguments), env, log, ready=log_says(log, " ready."))


def start_beat(env: Mapping[str, str], name: str) -> Process:
    """``celery beat``: the sweepers' clock (a gevent worker cannot embed it)."""
    folder = Path(tempfile.mkdtemp(prefix=f"vm-{name}-"))
    command = _celery("beat", "--schedule", str(folder / "schedule"))
    log = folder / "celery.log"
    return launch(Process, name, command, env, log, ready=log_says(log, "beat: Starting"))


def start_flower(env: Mapping[str, str], folder: Path) -> Served:
    """Flower on a free loopback port with the Procfile's configuration; ready once it answers HTTP."""
    port = free_port()
    command = [*CELERY, "flower", FLOWER_CONF, "--address=127.0.0.1", f"--port={port}"]
    base_url = f"http://127.0.0.1:{port}"
    log = folder / "flower.log"
    return launch(Served, "flower", command, env, log, ready=answers_http(base_url), base_url=base_url)


class OwnRedis:
    """A ``redis-server`` of a test's own on a free port, keeping nothing on disk (like production's):
    stopped and started again as often as the test likes, it comes back empty; or, ``persistent``, with an
    append-only file that brings every key back."""

    def __init__(self, *, persistent: bool = False) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = Path(tempfile.mkdtemp(prefix="vm-own-redis-"))
        self.persistent = persistent
        self.process: Process | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += [
            "--save",
            "",
            "--appendonly",
            "yes" if self.persistent else "no",
            "--dir",
            str(self.folder),
        ]
        log = self.folder / "redis.log"
        self.process = launch(
            Process, "redis-server", command, None, log, ready=self._answers, stop_seconds=10, wait=False
        )
        self.process.wait_ready()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
            self.process = None

    def keys(self) -> int:
        return int(redis.Redis.from_url(self.url).dbsize())

    def _answers(self) -> bool:
        """Ours answers on the port: while it was stopped, any process of the machine may have been handed
        the port by ``free_port`` and put a server of its own there (ours then fails to bind, and says so)."""
        try:
            with redis.Redis.from_url(self.url, socket_timeout=1) as client:
                server = int(client.info("server")["process_id"])
        except redis.ConnectionError:
            return False
        return self.process is not None and server == self.process.popen.pid
