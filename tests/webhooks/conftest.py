"""Webhook fixtures: a test CA trusted through REQUESTS_CA_BUNDLE, loopback allowed, a live HTTPS receiver."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select

from models import WebhookEndpoint
from models import session as db_session
from services.events import EVENT_TYPES
from settings import get_settings
from tests.fixtures.db import Persona
from tests.webhooks.receiver import Receiver


@pytest.fixture(scope="session")
def test_ca(tmp_path_factory: pytest.TempPathFactory) -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def webhook_env(test_ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Deliveries trust the test CA and may reach loopback, as in local development."""
    bundle = tmp_path / "test-ca.pem"
    test_ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    monkeypatch.setenv("WEBHOOK_ALLOW_LOOPBACK", "true")
    get_settings.cache_clear()
    yield
    monkeypatch.undo()
    get_settings.cache_clear()


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
def forget_endpoints_afterwards(request: pytest.FixtureRequest) -> Iterator[None]:
    """Delete the endpoints (and so the deliveries) a test created, once it is over.

    The sweeper is global by nature: a delivery left pending by one test would fall due when the next
    test moves the clock. Tests share the run's database, so each cleans up what it added.
    """
    if "database_url" not in request.fixturenames:
        yield
        return
    newest_before = _newest_endpoint_id()
    yield
    with db_session.transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id > newest_before))


def _newest_endpoint_id() -> int:
    with db_session.transaction() as session:
        return session.scalar(select(func.max(WebhookEndpoint.id))) or 0
