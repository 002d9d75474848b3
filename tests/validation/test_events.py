"""Finishing a job records its event in the completing transaction: batch.completed (spec 6.3) for a
batch, validation.completed for a single validation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import delete, select

from models.session import transaction
from models.webhooks import Event, WebhookEndpoint
from settings import get_settings
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker


@pytest.fixture
def subscribe() -> Iterator[Callable[..., None]]:
    """Enabled endpoints set up directly (like an operator: delivery is not what these tests are about),
    deleted afterwards with their deliveries so the webhook tests' sweeps never see them. The URL is a
    loopback literal, which the outbound client refuses before any DNS lookup or connection."""
    created: list[int] = []

    def add(persona: Persona, *events: str) -> None:
        with transaction() as session:
            endpoint = WebhookEndpoint(
                account_id=persona.account_id,
                url="https://127.0.0.1:9/in",
                events=list(events),
                secret="whsec_test",
                status="enabled",
            )
            session.add(endpoint)
            session.flush()
            created.append(endpoint.id)

    yield add
    with transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id.in_(created)))


def events_of(persona: Persona, event_type: str) -> list[dict[str, Any]]:
    with transaction() as session:
        return list(
            session.scalars(
                select(Event.data).where(Event.account_id == persona.account_id, Event.type == event_type)
            )
        )


def test_a_finished_batch_emits_batch_completed(
    live_api: Api, worker: Worker, owner: Persona, subscribe: Callable[..., None]
) -> None:
    subscribe(owner, "batch.completed")

    body = live_api.call(
        "post", "/validate/batch", owner, json={"emails": ["alice@mailbox.test", "zed@mailbox.test", "x"]}
    ).json()

    [data] = events_of(owner, "batch.completed")
    assert data["batchId"] == body["batchId"]
    assert (data["total"], data["valid"], data["warning"], data["invalid"]) == (
        3,
        body["valid"],
        body["warning"],
        body["invalid"],
    )
    assert data["resultsUrl"] == f"{get_settings().base_url}/batches/{body['batchId']}/results"
    assert isinstance(data["processingTime"], int)


def test_a_single_validation_emits_validation_completed(
    live_api: Api, worker: Worker, owner: Persona, subscribe: Callable[..., None]
) -> None:
    subscribe(owner, "validation.completed")

    live_api.call(
        "post", "/validate", owner, json={"email": "bob@mailbox.test", "options": {"quickMode": True}}
    )
    live_api.call("post", "/validate", owner, json={"email": " Carol@mailbox.test"})

    emitted = events_of(owner, "validation.completed")
    # the address trimmed and in lowercase: with or without quickMode, as the API answers it
    assert sorted(data["email"] for data in emitted) == ["bob@mailbox.test", "carol@mailbox.test"]
    assert all(data["keyId"] == owner.key_id for data in emitted)
