"""An event committed while Redis is down waits in Postgres and is delivered once Redis is back.

The test runs its own ``redis-server`` (no persistence) as the broker, stops it, commits an event (the
after-commit nudge is lost), starts it again empty, and runs a real Celery worker with its embedded beat:
the beat sweeper finds the pending delivery in Postgres and the receiver gets it. The shared Redis on 6379
is never touched.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select

import services.broker
from models import WebhookDelivery
from models import session as db_session
from services.webhooks import dispatch, events
from settings import get_settings
from tests.fixtures.db import Persona
from tests.processes import OwnRedis, Process, start_worker
from tests.webhooks.conftest import Subscription
from tests.webhooks.receiver import Receiver
from workers.celery_app import create_celery


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch, webhook_env: None) -> Iterator[OwnRedis]:
    """This test's own Redis as the Celery broker of this process (and of the worker it starts).

    Only the Celery app changes here: the service's own Redis client (rate limits) stays on the run's.
    """
    server = OwnRedis()
    server.start()
    celery = create_celery(replace(get_settings(), redis_url=server.url))
    monkeypatch.setattr(services.broker, "publisher", lambda: celery)
    monkeypatch.setattr(dispatch, "_skip_until", 0.0)
    yield server
    server.stop()


def wait_for_delivery(receiver: Receiver, event_id: str, worker: Process) -> bool:
    """Readiness polling, not a timed assertion: beat ticks every 10 s; give up after 90 s."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not worker.exited():
        if any(event["id"] == event_id for event in receiver.events()):
            return True
        time.sleep(0.2)
    return False


def test_event_committed_during_a_redis_outage_is_delivered_after_restart(
    broker: OwnRedis, owner: Persona, receiver: Receiver, subscribed: Subscription, tmp_path: Path
) -> None:
    broker.stop()  # the outage
    with db_session.transaction() as session:
        event = events.emit(session, owner.account_id, "quota.exceeded", {"used": 5000, "limit": 5000})
    assert event is not None  # the commit went through although the nudge could not be published
    with db_session.transaction() as session:
        status = session.scalars(select(WebhookDelivery.status).where(WebhookDelivery.event_id == event.id))
        assert list(status) == ["pending"]

    broker.start()  # back, and empty: no persistence, the nudge is gone for good
    assert broker.keys() == 0
    # One solo worker with beat embedded, on the queues a delivery crosses.
    worker = start_worker(
        {**os.environ, "REDIS_URL": broker.url},
        f"webhooks-test-{os.getpid()}",
        queues="default,webhooks",
        pool="solo",
        beat_schedule=tmp_path / "beat-schedule",
    )
    try:
        assert wait_for_delivery(receiver, event.id, worker), "the worker's beat sweep did not deliver"
    finally:
        worker.stop()
    [seen] = [item for item in receiver.received if item.event and item.event["id"] == event.id]
    assert seen.verified
    assert seen.event is not None
    assert seen.event["data"] == {"used": 5000, "limit": 5000}
