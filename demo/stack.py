"""Everything the demo starts, and stops again on exit: the mail lab (in this process), a database and a
Redis key prefix of its own, then gunicorn, a Celery worker and beat (each stopped by its own PID)."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg2
import redis
from sqlalchemy import URL, make_url

from demo.sample import BENCH_DOMAINS
from maillab import MailLab
from maillab.world import bench_world, standard_world

ROOT = Path(__file__).resolve().parents[1]
READY_SECONDS = 90
# Short retry and sweep times, so the greylisted address settles within the demo instead of in 5 minutes.
DEMO_SETTINGS = {
    "ALLOW_TEST_DOMAINS": "true",
    "APP_ENV": "development",
    "WEB_CONCURRENCY": "1",
    "SMTP_HELO_HOST": "prober.verimail.test",
    "SMTP_MAIL_FROM": "probe@verimail.test",
    "SMTP_BANNER_TIMEOUT": "5",
    "SMTP_GREYLIST_RETRY_AFTER": "3",
    "JOB_SWEEP_SECONDS": "1",
}


@dataclass(frozen=True)
class Service:
    base_url: str
    key: str


@contextmanager
def running(latency: float) -> Iterator[Service]:
    """The service against the lab, ready for requests; everything stopped and removed afterwards."""
    with ExitStack() as stack:
        lab = stack.enter_context(
            MailLab(standard_world().merged(bench_world(BENCH_DOMAINS)), latency=latency)
        )
        env = stack.enter_context(_own_storage(lab))
        _migrate(env)
        key = _open_account(env)
        stack.enter_context(_process(env, _gunicorn(env), ready="Booting worker"))
        stack.enter_context(_process(env, _celery("worker", *WORKER_ARGS), ready=" ready."))
        schedule = Path(tempfile.mkdtemp(prefix="verimail-demo-beat-")) / "schedule"
        stack.enter_context(_process(env, _celery("beat", "--schedule", str(schedule)), ready="Starting"))
        yield Service(f"http://127.0.0.1:{env['PORT']}", key)


WORKER_ARGS = ("--queues", "default,probes", "--pool", "gevent", "--concurrency", "50", "--without-gossip")


@contextmanager
def _own_storage(lab: MailLab) -> Iterator[dict[str, str]]:
    name = f"verimail_demo_{secrets.token_hex(4)}"
    base = make_url(os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/verimail"))
    server = base.set(drivername="postgresql")  # libpq's own form: psycopg2 reads no SQLAlchemy driver names
    env = {
        **os.environ,
        **DEMO_SETTINGS,
        **lab.env(),
        "DATABASE_URL": _dsn(server, name),
        "REDIS_KEY_PREFIX": f"vmdemo_{secrets.token_hex(4)}:",
        "PORT": str(_free_port()),
    }
    _sql(server, f'CREATE DATABASE "{name}"')
    try:
        yield env
    finally:
        _sql(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _forget_keys(env)


def _migrate(env: dict[str, str]) -> None:
    command = [sys.executable, "-m", "alembic", "-c", "models/alembic.ini", "upgrade", "head"]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)


def _open_account(env: dict[str, str]) -> str:
    """A Scale account's admin key (every check), opened as an operator would (``services.accounts``)."""
    code = (
        "from services.accounts import open_account; from models.accounts import Tier; "
        "print(open_account('demo@example.com', Tier.SCALE).admin_key.secret)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
    return out.stdout.decode().strip().splitlines()[-1]


def _gunicorn(env: dict[str, str]) -> list[str]:
    bind = f"127.0.0.1:{env['PORT']}"
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "gunicorn.conf.py",
        "--bind",
        bind,
        "web:create_app()",
    ]


def _celery(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "celery", "--app", "workers", *arguments, "--loglevel", "INFO"]


@contextmanager
def _process(env: dict[str, str], command: list[str], ready: str) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command`` with its output in a log file; wait for ``ready`` in it; terminate it at the end."""
    log = Path(tempfile.mkdtemp(prefix="verimail-demo-")) / "out.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for(proc, log, ready)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def _wait_for(proc: subprocess.Popen[bytes], log: Path, ready: str) -> None:
    give_up = time.monotonic() + READY_SECONDS
    while ready not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > give_up:
            raise RuntimeError(f"a demo process did not start (log {log}):\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _dsn(server: URL, database: str) -> str:
    return server.set(database=database).render_as_string(hide_password=False)


def _sql(server: URL, statement: str) -> None:
    conn = psycopg2.connect(_dsn(server, "postgres"))
    try:
        conn.autocommit = True
        conn.cursor().execute(statement)
    finally:
        conn.close()


def _forget_keys(env: dict[str, str]) -> None:
    client = redis.Redis.from_url(env.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    keys = list(client.scan_iter(match=f"{env['REDIS_KEY_PREFIX']}*", count=1000))
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])
