"""Webhook fixtures: a test CA trusted through REQUESTS_CA_BUNDLE, loopback allowed, a live HTTPS receiver."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme
from flask.testing import FlaskClient
from sqlalchemy import delete

from models import WebhookEndpoint
from models import session as db_session
from services.webhooks.events import EVENT_TYPES
from settings import get_settings
from tests.fixtures.db import Persona
from tests.processes import start_worker
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Worker


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def ca_bundle(test_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> Path:
    bundle = tmp_path_factory.mktemp("webhook-ca") / "test-ca.pem"
    test_ca.cert_pem.write_to_path(str(bundle))
    return bundle


@pytest.fixture
def webhook_env(ca_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Deliveries trust the test CA and may reach loopback, as in local development."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca_bundle))
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def webhooks_worker(database_url: str, ca_bundle: Path) -> Iterator[Worker]:
    """A Celery worker on the ``webhooks`` queue, as the Procfile's ``webhooks`` process: test sends and
    redeliveries are made by it, never by the web process. Module-scoped, asked for by the modules that
    need it: it also takes every new event's nudge, which tests driving the sweeper must not see."""
    env = dict(os.environ) | {"REQUESTS_CA_BUNDLE": str(ca_bundle), "WEBHOOK_ALLOW_LOOPBACK": "true"}
    started = start_worker(env, f"hooks{os.getpid()}", concurrency=8, queues="webhooks")
    yield started
    started.stop()


@pytest.fixture
def receiver(test_ca: trustme.CA, webhook_env: None) -> Iterator[Receiver]:
    server = Receiver(ca=test_ca)
    server.start()
    yield server
    server.stop()


@dataclass(frozen=True)
class Subscription:
    endpoint_id: int
    secret: str


def subscribe(client: FlaskClient, persona: Persona, receiver: Receiver, events: list[str]) -> Subscription:
    """Create an endpoint through the API and teach the receiver its secret, as a customer would."""
    response = client.post(
        "/webhooks", json={"url": receiver.url(), "events": events}, headers=persona.headers
    )
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    receiver.secret = body["secret"]
    return Subscription(body["id"], body["secret"])


@pytest.fixture
def subscribed(client: FlaskClient, owner: Persona, receiver: Receiver) -> Subscription:
    """The owner's endpoint on the live receiver, subscribed to every event type."""
    return subscribe(client, owner, receiver, list(EVENT_TYPES))


@pytest.fixture(autouse=True)
def no_foreign_endpoints(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each webhook test starts and ends with no endpoint (so no delivery) in the run's database.

    The sweeper is global by nature: a delivery left pending by any earlier test - from this folder or from
    validation, rotation or usage tests that subscribe endpoints - would fall due when this test moves the
    clock, and its counts would be off. Tests run one after another on the run's own database, so what is
    there before a test starts is leftovers; deleting endpoints cascades to their deliveries and attempts.
    """
    if "database_url" not in request.fixturenames:
        yield
        return
    _delete_all_endpoints()
    yield
    _delete_all_endpoints()


def _delete_all_endpoints() -> None:
    with db_session.transaction() as session:
        session.execute(delete(WebhookEndpoint))
