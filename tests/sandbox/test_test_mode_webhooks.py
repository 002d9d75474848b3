"""A batch of magic addresses fires a real, signed ``batch.completed`` to a test-mode endpoint, marked
``livemode: false``; the account's live endpoint gets nothing of it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete, select

from models import WebhookEndpoint
from models.session import transaction
from models.webhooks import Event, WebhookDelivery
from tests.fixtures.db import Persona, open_twins
from tests.sandbox.test_magic_table import OUTCOMES
from tests.sandbox.test_test_mode_jobs import worker
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Api, Worker

__all__ = ["worker"]


@pytest.fixture
def twins(database_url: str) -> Iterator[tuple[Persona, Persona]]:
    live, test = open_twins()
    yield live, test
    with transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.account_id == live.account_id))


def subscribe(
    live_api: Api, persona: Persona, url: str, events: tuple[str, ...] | list[str] = ("batch.completed",)
) -> dict[str, Any]:
    response = live_api.call("post", "/webhooks", persona, json={"url": url, "events": list(events)})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def deliveries_to(endpoint_id: int) -> list[int]:
    with transaction() as session:
        stmt = select(WebhookDelivery.id).where(WebhookDelivery.endpoint_id == endpoint_id)
        return list(session.scalars(stmt))


def batch_events(receiver: Receiver, batch_id: str) -> list[dict[str, Any]]:
    return [
        e for e in receiver.events() if e["type"] == "batch.completed" and e["data"]["batchId"] == batch_id
    ]


def test_a_batch_of_magic_addresses_fires_a_signed_test_mode_batch_completed(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona], receiver: Receiver
) -> None:
    live, test = twins
    endpoint = subscribe(live_api, test, receiver.url(path="/test"))
    live_endpoint = subscribe(live_api, live, receiver.url(path="/live"))
    receiver.secret = endpoint["secret"]
    emails = [f"{local}@example.net" for local in sorted(OUTCOMES)]

    batch = live_api.call("post", "/validate/batch", test, json={"emails": emails}).json()

    give_up = time.monotonic() + 30
    while not batch_events(receiver, batch["batchId"]) and time.monotonic() < give_up:
        time.sleep(0.2)
    [event] = batch_events(receiver, batch["batchId"])
    assert event["livemode"] is False
    assert (event["data"]["total"], event["data"]["valid"]) == (len(emails), batch["valid"])
    assert all(item.verified for item in receiver.received)  # signed with the test endpoint's secret
    assert endpoint["livemode"] is False
    assert deliveries_to(live_endpoint["id"]) == []  # the live endpoint gets no test-mode event


def test_each_mode_lists_only_its_own_endpoints(
    live_api: Api, twins: tuple[Persona, Persona], receiver: Receiver
) -> None:
    live, test = twins
    created = subscribe(live_api, test, receiver.url())

    assert [e["id"] for e in live_api.call("get", "/webhooks", test).json()["data"]] == [created["id"]]
    assert live_api.call("get", "/webhooks", live).json()["data"] == []
    assert live_api.call("get", f"/webhooks/{created['id']}", live).status_code == 404


def test_a_quick_test_mode_validation_emits_validation_completed_to_the_test_endpoint_only(
    live_api: Api, twins: tuple[Persona, Persona], webhook_env: None
) -> None:
    live, test = twins
    test_endpoint = subscribe(live_api, test, "https://127.0.0.1:9/test", ["validation.completed"])
    live_endpoint = subscribe(live_api, live, "https://127.0.0.1:9/live", ["validation.completed"])
    email = {"email": "full@example.net", "options": {"quickMode": True}}

    answer = live_api.call("post", "/validate", test, json=email).json()

    assert answer["livemode"] is False
    with transaction() as session:
        stmt = select(Event.livemode, Event.data).join(WebhookDelivery, WebhookDelivery.event_id == Event.id)
        sent = session.execute(stmt.where(WebhookDelivery.endpoint_id == test_endpoint["id"])).all()
    assert [(livemode, data["email"]) for livemode, data in sent] == [(False, "full@example.net")]
    assert deliveries_to(live_endpoint["id"]) == []
