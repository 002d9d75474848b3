"""Everything the demo starts, and stops again on exit: the mail lab (in this process), a folder for the
processes' logs, a database and a Redis key prefix of its own, then gunicorn, a Celery worker and beat
(started together, each stopped by its own PID). All of it is removed on exit; only a demo that failed
keeps its folder of logs, and says where it is."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import make_url

from demo.sample import BENCH_DOMAINS
from demo.storage import forget_keys, new_key_prefix, own_database
from demo.timings import timings
from maillab import MailLab
from maillab.world import bench_world, standard_world

ROOT = Path(__file__).resolve().parents[1]
READY_SECONDS = 90
# What the processes need to serve the lab; the demo's retry and politeness times are in demo.timings.
DEMO_SETTINGS = {
    "ALLOW_TEST_DOMAINS": "true",
    "APP_ENV": "development",
    "WEB_CONCURRENCY": "1",
    "SMTP_HELO_HOST": "prober.verimail.test",
    "SMTP_MAIL_FROM": "probe@verimail.test",
    "SMTP_BANNER_TIMEOUT": "5",
}
WSGI_APP = "web:create_app()"
# One worker: nobody to gossip or mingle with (mingling alone waits a second at start).
WORKER_ARGS = (
    *("--queues", "default,probes", "--pool", "gevent", "--concurrency", "50"),
    *("--without-gossip", "--without-mingle"),
)
# Migrations and the demo's account in one interpreter: each Python start with the service's imports
# costs a second or two of the demo's start.
PREPARE = (
    "from alembic.config import main; main(argv=['-c', 'models/alembic.ini', '-q', 'upgrade', 'head']); "
    "from services.accounts import open_account; from models.accounts import Tier; "
    "print(open_account('demo@example.com', Tier.SCALE).admin_key.secret)"
)


@dataclass(frozen=True)
class Service:
    base_url: str
    key: str
    database: str  # the demo's own, dropped on exit
    redis_prefix: str  # the demo's own, its keys deleted on exit


@dataclass(frozen=True)
class Started:
    """One process of the demo, its log and the line that says it is ready."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    ready: str


@contextmanager
def running(latency: float) -> Iterator[Service]:
    """The service against the lab, ready for requests; everything stopped and removed afterwards."""
    with ExitStack() as stack:
        folder = stack.enter_context(_workspace())
        lab = stack.enter_context(
            MailLab(standard_world().merged(bench_world(BENCH_DOMAINS)), latency=latency)
        )
        env = stack.enter_context(_own_storage(lab))
        started = stack.enter_context(_processes())
        # The web server and the worker need no table to boot, so they boot while the database is
        # migrated; beat, whose first sweeps read tables, starts after.
        started.append(_start(env, folder, name="web", command=_gunicorn(env), ready="Booting worker"))
        worker = _celery("worker", *WORKER_ARGS)
        started.append(_start(env, folder, name="worker", command=worker, ready=" ready."))
        key = _prepare(env)
        beat = _celery("beat", "--schedule", str(folder / "beat"))
        started.append(_start(env, folder, name="beat", command=beat, ready="Starting"))
        for process in started:
            _wait_for(process)
        database = str(make_url(env["DATABASE_URL"]).database)
        yield Service(f"http://127.0.0.1:{env['PORT']}", key, database, env["REDIS_KEY_PREFIX"])


@contextmanager
def _workspace() -> Iterator[Path]:
    """The processes' logs and beat's schedule, removed on the way out unless the demo failed."""
    folder = Path(tempfile.mkdtemp(prefix="verimail-demo-"))
    keep = False
    try:
        yield folder
    except Exception as error:
        keep = True
        error.add_note(f"the demo's process logs are kept in {folder}")
        raise
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _own_storage(lab: MailLab) -> Iterator[dict[str, str]]:
    with own_database("verimail_demo") as database_url:
        env = {
            **timings(),
            **os.environ,
            **DEMO_SETTINGS,
            **lab.env(),
            "DATABASE_URL": database_url,
            "REDIS_KEY_PREFIX": new_key_prefix("vmdemo"),
            "PORT": str(_free_port()),
        }
        try:
            yield env
        finally:
            forget_keys(env["REDIS_KEY_PREFIX"])


def _prepare(env: dict[str, str]) -> str:
    """Migrate the demo's database and open a Scale account (every check) as an operator would
    (``services.accounts``); its admin key."""
    command = [sys.executable, "-c", PREPARE]
    done = subprocess.run(command, cwd=ROOT, env=env, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the demo's database could not be prepared:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


def _gunicorn(env: dict[str, str]) -> list[str]:
    bind = f"127.0.0.1:{env['PORT']}"
    return [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", bind, WSGI_APP]


def _celery(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "celery", "--app", "workers", *arguments, "--loglevel", "INFO"]


def _start(env: dict[str, str], folder: Path, *, name: str, command: list[str], ready: str) -> Started:
    """Start ``command`` with its output in ``folder``."""
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Started(name, proc, log, ready)


@contextmanager
def _processes() -> Iterator[list[Started]]:
    """The processes started into the list, all terminated together on the way out: one at a time, the
    worker's warm shutdown (about 5 s, idle) came on top of the others'."""
    started: list[Started] = []
    try:
        yield started
    finally:
        for process in started:
            if process.proc.poll() is None:
                process.proc.terminate()
        for process in started:
            _wait_exit(process.proc)


def _wait_exit(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _wait_for(process: Started) -> None:
    give_up = time.monotonic() + READY_SECONDS
    while process.ready not in process.log.read_text(errors="replace"):
        if process.proc.poll() is not None or time.monotonic() > give_up:
            tail = process.log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the demo's {process.name} did not start:\n{tail}")
        time.sleep(0.1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
