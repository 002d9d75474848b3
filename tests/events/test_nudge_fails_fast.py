"""The after-commit nudge is best effort: a broken broker costs a request one quick try, never a hang.

Both tests use their own broker (a silent socket, or their own ``redis-server``); the shared Redis on 6379
is never touched.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import select

import services.broker
from models import WebhookDelivery
from models import session as db_session
from services.webhooks import dispatch, events
from settings import get_settings
from tests.fixtures.db import Persona
from tests.processes import OwnRedis
from tests.webhooks.conftest import Subscription
from workers.celery_app import create_celery


class SilentBroker:
    """A loopback port that accepts connections and never says a word: a hung Redis, as a client sees it."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.listener.accept()[0])
            except OSError:  # closed by the test
                return

    def close(self) -> None:
        self.listener.close()
        for connection in self.accepted:
            connection.close()


def use_broker(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    app = create_celery(replace(get_settings(), redis_url=url))
    monkeypatch.setattr(services.broker, "publisher", lambda: app)
    monkeypatch.setattr(dispatch, "_skip_until", 0.0)


@pytest.fixture
def silent_broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[SilentBroker]:
    broker = SilentBroker()
    use_broker(monkeypatch, broker.url)
    yield broker
    broker.close()


def test_a_silent_broker_costs_one_connection_and_the_event_waits_in_postgres(
    silent_broker: SilentBroker, owner: Persona, subscribed: Subscription
) -> None:
    with db_session.transaction() as session:
        first = events.emit(session, owner.account_id, "quota.reset", {"previousUsage": 1})
    with db_session.transaction() as session:  # within the back-off: no second try
        second = events.emit(session, owner.account_id, "quota.reset", {"previousUsage": 2})
    assert first is not None
    assert second is not None
    assert len(silent_broker.accepted) == 1  # one connection, no reconnection loop
    stmt = select(WebhookDelivery.status).where(WebhookDelivery.event_id.in_([first.id, second.id]))
    with db_session.transaction() as session:
        assert list(session.scalars(stmt)) == ["pending", "pending"]  # the sweeper will deliver them


def test_nudges_are_published_again_once_the_broker_is_back(monkeypatch: pytest.MonkeyPatch) -> None:
    broker = OwnRedis()
    broker.start()
    try:
        use_broker(monkeypatch, broker.url)
        broker.stop()
        assert dispatch.send_nudge("evt_outage") is False
        broker.start()
        monkeypatch.setattr(dispatch, "_skip_until", 0.0)  # the back-off has passed
        assert dispatch.send_nudge("evt_after") is True
        assert broker.keys() > 0  # the message waits in the broker's queue
    finally:
        broker.stop()
