"""The sweep as production runs it: a message on the broker (what beat sends), a real Celery worker process,
the real clock, and the owner's email arriving at the loopback SMTP server.

A separate process cannot share the test's frozen clock, so the key is aged in the database instead: its
secret's issue time is set 83 days back, as if it had been created then.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from celery import Celery
from sqlalchemy import update

from core import clock
from models import ApiKey
from models.session import transaction
from settings import get_settings
from tests.fixtures.db import Persona, add_key
from tests.mail.mailbox import Mailbox, start_server
from tests.processes import start_worker
from tests.rotation.conftest import mail_about
from tests.workers.harness import Worker
from workers.celery_app import create_celery

SWEEP = "tasks.keys.sweep_key_rotation"
PATIENCE_SECONDS = 60.0


@pytest.fixture(scope="module")
def broker_mailbox(database_url: str) -> Iterator[Mailbox]:
    box = Mailbox()
    controller = start_server(box)
    box.url = f"smtp://127.0.0.1:{controller.port}"
    yield box
    controller.stop()


@pytest.fixture(scope="module")
def rotation_worker(broker_mailbox: Mailbox) -> Iterator[Worker]:
    """A worker on this run's database and Redis prefix, sending mail to ``broker_mailbox``."""
    started = start_worker({**os.environ, "MAIL_SMTP_URL": broker_mailbox.url}, f"rot{os.getpid()}")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def publisher(rotation_worker: Worker) -> Iterator[Celery]:
    """A Celery app built now, on this run's Redis prefix (the process-wide one may have been built, and
    connected, before the run's settings existed)."""
    celery = create_celery(get_settings())
    yield celery
    celery.close()


def age_secret(key_id: int, days: float) -> None:
    with transaction() as session:
        stmt = update(ApiKey).where(ApiKey.id == key_id)
        session.execute(stmt.values(secret_issued_at=clock.now() - timedelta(days=days)))


def finished_sweeps(worker: Worker) -> int:
    """How many sweeps the worker has finished, from its log (results are not kept: ignore_result)."""
    lines = worker.log.read_text(errors="replace").splitlines()
    return sum(1 for line in lines if f"{SWEEP}[" in line and " succeeded in " in line)


def wait_until(condition: Callable[[], bool]) -> None:
    """Poll until ``condition`` holds (the worker works at its own pace); the assertions follow."""
    give_up = time.monotonic() + PATIENCE_SECONDS
    while not condition() and time.monotonic() < give_up:
        time.sleep(0.2)


def test_sweeps_sent_through_the_broker_warn_once(
    owner: Persona, broker_mailbox: Mailbox, rotation_worker: Worker, publisher: Celery
) -> None:
    key = add_key(owner.account_id, "Broker-driven key", ("validate:write",))
    age_secret(key.key_id, 83.01)
    before = finished_sweeps(rotation_worker)

    for _ in range(4):  # beat on several hosts, or a tick delivered twice
        publisher.send_task(SWEEP)
    wait_until(lambda: finished_sweeps(rotation_worker) >= before + 4)

    subjects = [
        str(mail.message["Subject"]) for mail in mail_about(broker_mailbox, owner.account_id, key.key_id)
    ]
    assert subjects == ["Your API key “Broker-driven key” must be refreshed within 7 day(s)"]
