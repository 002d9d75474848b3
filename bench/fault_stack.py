"""The service as the Procfile runs it, on a Postgres cluster and a ``redis-server`` of the benchmark's own,
so ``bench.faults`` may stop, restart and kill any of them. The machine's shared Postgres (5432) and Redis
(6379) are never touched.

The stores and the processes are started by the test suite's launchers (``tests.processes``, and
``tests.faults.stack`` for Postgres): one way to start them, whoever asks.
Processes: gunicorn (``WEB_CONCURRENCY`` 2 x 8 threads), ``worker`` (default queue, 8 threads),
``webhooks`` (16 threads), ``probes`` (gevent, 500) and ``beat``, with the service's own timings.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg2
import requests
import trustme

from bench.validation_workers import _account as account
from maillab import MailLab
from tests.faults.stack import OwnPostgres, migrate
from tests.processes import Gunicorn, OwnRedis, Process, start_beat, start_gunicorn, start_worker
from tests.webhooks.receiver import Receiver

PROCESSES = ("web", "worker", "webhooks", "probes", "beat")


@dataclass
class Service:
    """The running service: its stores, its processes by Procfile name, a key, and the receiver."""

    postgres: OwnPostgres
    redis: OwnRedis
    env: dict[str, str]
    processes: dict[str, Any]
    key: str
    receiver: Receiver

    @property
    def base_url(self) -> str:
        web: Gunicorn = self.processes["web"]
        return web.base_url

    def sql(self, statement: str, *args: object) -> list[tuple[Any, ...]]:
        """Rows of ``statement`` on the benchmark's own database (read from this process)."""
        with psycopg2.connect(self.postgres.url, connect_timeout=5) as connection, connection.cursor() as cur:
            cur.execute(statement, args)
            rows: list[tuple[Any, ...]] = cur.fetchall()
        connection.close()
        return rows

    def restart_probes(self) -> None:
        """SIGKILL the probes worker and start another, as a supervisor would; returns once it is ready."""
        self.processes["probes"].kill()
        self.processes["probes"] = _starters(self.env)["probes"]()


@contextmanager
def running_service(lab: MailLab, *, persistent_redis: bool) -> Iterator[Service]:
    """Stores, migrations, the Procfile's processes, an Enterprise Plus account subscribed to
    ``batch.completed`` at a live receiver; everything stopped and removed on exit."""
    ca = trustme.CA()
    bundle = Path(tempfile.mkdtemp(prefix="vm-faults-ca-")) / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    postgres, redis_server = OwnPostgres(), OwnRedis(persistent=persistent_redis)
    receiver = Receiver(ca=ca)
    processes: dict[str, Any] = {}
    try:
        postgres.create()
        redis_server.start()
        env = _environment(lab, postgres, redis_server, bundle)
        migrate(env)
        processes.update(_start_all(env))
        receiver.start()
        service = Service(postgres, redis_server, env, processes, account(env), receiver)
        _subscribe(service)
        yield service
    finally:
        with ThreadPoolExecutor(len(PROCESSES)) as pool:  # each waits for its own warm shutdown
            list(pool.map(lambda process: process.stop(), processes.values()))
        receiver.stop()
        redis_server.stop()
        postgres.destroy()


def _environment(lab: MailLab, postgres: OwnPostgres, redis_server: OwnRedis, bundle: Path) -> dict[str, str]:
    return (
        dict(os.environ)
        | lab.env()
        | {
            "DATABASE_URL": postgres.url,
            "REDIS_URL": redis_server.url,
            "REDIS_KEY_PREFIX": "vmfaults:",
            "ALLOW_TEST_DOMAINS": "true",
            "SMTP_HELO_HOST": "prober.verimail.test",
            "SMTP_MAIL_FROM": "probe@verimail.test",
            "WEBHOOK_ALLOW_LOOPBACK": "true",
            "REQUESTS_CA_BUNDLE": str(bundle),
            "BULK_MAX_ADDRESSES": "2000000",
        }
    )


def _starters(env: dict[str, str]) -> dict[str, Callable[[], Process]]:
    folder = Path(tempfile.mkdtemp(prefix="vm-faults-web-"))
    name = f"faults{os.getpid()}"
    return {
        "web": lambda: start_gunicorn(env, folder, WEB_CONCURRENCY="2"),
        "worker": lambda: start_worker(env, f"{name}-w", concurrency=8, queues="default", pool="threads"),
        "webhooks": lambda: start_worker(env, f"{name}-h", concurrency=16, queues="webhooks", pool="threads"),
        "probes": lambda: start_worker(env, f"{name}-p", concurrency=500, queues="probes"),
        "beat": lambda: start_beat(env, f"{name}-b"),
    }


def _start_all(env: dict[str, str]) -> dict[str, Any]:
    """Every process at once; on a busy machine a process may miss the launcher's minute to be ready, so
    once more after a failure."""
    try:
        return _start_each(env)
    except RuntimeError as error:
        print(f"(processes started again: {str(error).splitlines()[0]})", file=sys.stderr)
        return _start_each(env)


def _start_each(env: dict[str, str]) -> dict[str, Any]:
    """Every process at once (each takes seconds to import); on a failure the started ones are stopped."""
    starters = _starters(env)
    with ThreadPoolExecutor(len(starters)) as pool:
        futures = {name: pool.submit(start) for name, start in starters.items()}
    started = {name: future.result() for name, future in futures.items() if future.exception() is None}
    if len(started) < len(starters):
        for process in started.values():
            process.stop()
        raise next(error for future in futures.values() if (error := future.exception()) is not None)
    return started


def _subscribe(service: Service) -> None:
    hook = {"url": service.receiver.url(), "events": ["batch.completed"]}
    made = requests.post(
        f"{service.base_url}/webhooks", json=hook, headers={"X-API-Key": service.key}, timeout=30
    )
    made.raise_for_status()
    service.receiver.secret = made.json()["secret"]
