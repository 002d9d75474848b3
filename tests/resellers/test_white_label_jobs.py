"""White-label across the results the workers produce: a batch, its results URL, a bulk list's JSON
download and the batch.completed payload; switched off, the same carry the service's own brand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import delete, select

from models.session import transaction
from models.webhooks import Event, WebhookEndpoint
from tests.fixtures.db import Persona
from tests.resellers.conftest import Customer, create_sub_user
from tests.resellers.test_white_label import BRAND, OURS, brand_of, service_brand, switch
from tests.workers.harness import Api, Worker, poll_until_finished

EMAILS = ["alice@mailbox.test", "zed@mailbox.test", "not-an-address"]


@pytest.fixture
def batch_events(reseller: Persona) -> Iterator[list[int]]:
    """Endpoints subscribed to batch.completed set up directly (the payload is what matters here, not the
    delivery), at a loopback URL the outbound client refuses; removed afterwards."""
    created: list[int] = []
    yield created
    with transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id.in_(created)))


def subscribe(customer: Customer, created: list[int]) -> None:
    with transaction() as session:
        endpoint = WebhookEndpoint(
            account_id=customer.persona.account_id,
            url="https://127.0.0.1:9/in",
            events=["batch.completed"],
            secret="whsec_test",
            status="enabled",
        )
        session.add(endpoint)
        session.flush()
        created.append(endpoint.id)


def batch_completed(customer: Customer) -> dict[str, dict[str, Any]]:
    """The customer's batch.completed payloads by batch id."""
    with transaction() as session:
        found = session.scalars(
            select(Event.data).where(
                Event.account_id == customer.persona.account_id, Event.type == "batch.completed"
            )
        ).all()
    return {data["batchId"]: data for data in found}


def every_result_brand(live_api: Api, customer: Customer, *, branded: bool) -> list[dict[str, Any]]:
    """Run a batch, read its results URL, run a bulk list and download its JSON: the brand of each result
    and of both batch.completed payloads."""
    batch = live_api.call("post", "/validate/batch", customer, json={"emails": EMAILS})
    assert batch.status_code == 200, batch.text
    page = live_api.call("get", f"/batches/{batch.json()['batchId']}/results", customer)
    upload = live_api.call(
        "post", "/bulk/jobs", customer, data="\n".join(EMAILS), headers={"Content-Type": "text/csv"}
    ).json()
    poll_until_finished(live_api, customer, f"/bulk/jobs/{upload['id']}", 60)
    download = live_api.call("get", f"/bulk/jobs/{upload['id']}/download?format=json", customer)
    if branded:
        assert [r.status_code for r in (batch, page, download) if OURS in r.text.lower()] == []
    results = batch.json()["results"] + page.json()["results"] + download.json()
    assert len(results) == 3 * len(EMAILS)
    events = batch_completed(customer)
    payloads = [events[batch.json()["batchId"]], events[upload["id"]]]
    return [brand_of(result["metadata"]) for result in results] + [data["metadata"] for data in payloads]


def test_results_of_batches_and_lists_carry_the_reseller_brand_while_on(
    live_api: Api, worker: Worker, reseller: Persona, batch_events: list[int]
) -> None:
    customer = create_sub_user(live_api, reseller, tier="business")
    subscribe(customer, batch_events)
    switch(live_api, reseller, enabled=True)

    assert every_result_brand(live_api, customer, branded=True) == [BRAND] * (3 * len(EMAILS) + 2)


def test_and_the_services_own_brand_while_off(
    live_api: Api, worker: Worker, reseller: Persona, batch_events: list[int]
) -> None:
    customer = create_sub_user(live_api, reseller, tier="business")
    subscribe(customer, batch_events)
    switch(live_api, reseller, enabled=False)

    assert every_result_brand(live_api, customer, branded=False) == [service_brand()] * (3 * len(EMAILS) + 2)
