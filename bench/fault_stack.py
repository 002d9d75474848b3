"""The service as the Procfile runs it, on a Postgres cluster and a ``redis-server`` of the benchmark's own,
so ``bench.faults`` may stop, restart and kill any of them. The machine's shared Postgres (5432) and Redis
(6379) are never touched.

The stores and the processes are started by the test suite's launchers (``tests.faults.procfile``, and
``tests.faults.stack`` for Postgres): one way to start them, whoever asks.
Processes: gunicorn (``WEB_CONCURRENCY`` 2 x 8 threads), ``worker`` (default queue, 8 threads),
``webhooks`` (16 threads), ``probes`` (gevent, 500) and ``beat``, with the service's own timings.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg2
import requests
import trustme

from bench.validation_workers import _account as account
from maillab import MailLab
from tests.faults.procfile import Processes
from tests.faults.stack import OwnPostgres, migrate
from tests.processes import Gunicorn, OwnRedis
from tests.webhooks.receiver import Receiver


@dataclass
class Service:
    """The running service: its stores, its processes by Procfile name, a key, and the receiver."""

    postgres: OwnPostgres
    redis: OwnRedis
    env: dict[str, str]
    started: Processes
    key: str
    receiver: Receiver

    @property
    def processes(self) -> dict[str, Any]:
        return self.started.running

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


@contextmanager
def running_service(lab: MailLab, *, persistent_redis: bool) -> Iterator[Service]:
    """Stores, migrations, the Procfile's processes, an Enterprise Plus account subscribed to
    ``batch.completed`` at a live receiver; everything stopped and removed on exit."""
    ca = trustme.CA()
    bundle = Path(tempfile.mkdtemp(prefix="vm-faults-ca-")) / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    postgres, redis_server = OwnPostgres(), OwnRedis(persistent=persistent_redis)
    receiver = Receiver(ca=ca)
    started: Processes | None = None
    try:
        postgres.create()
        redis_server.start()
        env = _environment(lab, postgres, redis_server, bundle)
        migrate(env)
        started = _start_all(env)
        receiver.start()
        service = Service(postgres, redis_server, env, started, account(env), receiver)
        _subscribe(service)
        yield service
    finally:
        if started is not None:
            started.stop_all()
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


def _start_all(env: dict[str, str]) -> Processes:
    """Every process at once; on a busy machine a process may miss the launcher's minute to be ready, so
    once more after a failure."""
    started = Processes(env, Path(tempfile.mkdtemp(prefix="vm-faults-web-")), f"faults{os.getpid()}")
    try:
        started.start_all()
    except RuntimeError as error:
        print(f"(processes started again: {str(error).splitlines()[0]})", file=sys.stderr)
        started.start_all()
    return started


def _subscribe(service: Service) -> None:
    hook = {"url": service.receiver.url(), "events": ["batch.completed"]}
    made = requests.post(
        f"{service.base_url}/webhooks", json=hook, headers={"X-API-Key": service.key}, timeout=30
    )
    made.raise_for_status()
    service.receiver.secret = made.json()["secret"]
