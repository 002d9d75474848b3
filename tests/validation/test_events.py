"""Finishing a job records its event in the completing transaction: batch.completed (spec 6.3) for a
batch, validation.completed for a single validation."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from models.events import Event
from models.session import transaction
from models.webhooks import WebhookEndpoint
from settings import get_settings
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker


def subscribe(persona: Persona, *events: str) -> None:
    """An enabled endpoint (set up directly, like an operator: delivery is not what this test is about)."""
    with transaction() as session:
        session.add(
            WebhookEndpoint(
                account_id=persona.account_id,
                url="https://hooks.example.com/in",
                events=list(events),
                secret="whsec_test",
                status="enabled",
            )
        )


def events_of(persona: Persona, event_type: str) -> list[dict[str, Any]]:
    with transaction() as session:
        return list(
            session.scalars(
                select(Event.data).where(Event.account_id == persona.account_id, Event.type == event_type)
            )
        )


def test_a_finished_batch_emits_batch_completed(api: Api, worker: Worker, owner: Persona) -> None:
    subscribe(owner, "batch.completed")

    body = api.call(
        "post", "/validate/batch", owner, json={"emails": ["alice@mailbox.test", "zed@mailbox.test", "x"]}
    ).json()

    [data] = events_of(owner, "batch.completed")
    assert data["batchId"] == body["batchId"]
    assert (data["total"], data["valid"], data["warning"], data["invalid"]) == (
        3, body["valid"], body["warning"], body["invalid"],
    )  # fmt: skip
    assert data["resultsUrl"] == f"{get_settings().base_url}/batches/{body['batchId']}/results"
    assert isinstance(data["processingTime"], int)


def test_a_single_validation_emits_validation_completed(api: Api, worker: Worker, owner: Persona) -> None:
    subscribe(owner, "validation.completed")

    api.call("post", "/validate", owner, json={"email": "bob@mailbox.test", "options": {"quickMode": True}})
    api.call("post", "/validate", owner, json={"email": "carol@mailbox.test"})

    emitted = events_of(owner, "validation.completed")
    assert sorted(data["email"] for data in emitted) == ["bob@mailbox.test", "carol@mailbox.test"]
    assert all(data["keyId"] == owner.key_id for data in emitted)
