"""Fixtures and helpers of the limits and usage tests: a frozen clock, real requests that validate, and
reads of what landed in the database.

Validations are charged through the app's real routes with addresses that fail syntax: they are judged
in the web process without DNS, SMTP or a worker, and charged like any other validation.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from core import clock
from models.accounts import Account
from models.session import transaction
from models.usage import UsagePeriod
from models.webhooks import Event, WebhookEndpoint
from services.usage import charging
from services.validation.errors import BATCH_MAXIMUM
from services.webhooks.events import EVENT_TYPES

NOT_AN_ADDRESS = "not-an-address"  # no "@": syntax alone decides, nothing is looked up


def validate(client: FlaskClient, headers: dict[str, str], count: int = 1) -> TestResponse:
    """One request validating ``count`` syntax-invalid addresses: ``POST /validate`` (quickMode) for one,
    ``POST /validate/batch`` up to 100, a bulk upload (``POST /bulk/jobs``) past that. Each is one request
    against the rate limit and ``count`` validations against the quota. A single or a batch answers 200 with
    its results (settled in the web process); a list answers 202 once charged (no worker plans it here)."""
    if count == 1:
        single = {"email": NOT_AN_ADDRESS, "options": {"quickMode": True}}
        return client.post("/validate", json=single, headers=headers)
    addresses = [f"{NOT_AN_ADDRESS}-{position}" for position in range(count)]
    if count <= BATCH_MAXIMUM:
        return client.post("/validate/batch", json={"emails": addresses}, headers=headers)
    csv_list = {**headers, "Content-Type": "text/csv"}
    return client.post("/bulk/jobs", data="\n".join(addresses), headers=csv_list)


def body(response: TestResponse) -> dict[str, Any]:
    """The JSON body of an answer that must have one."""
    data = response.get_json()
    assert isinstance(data, dict), response.data
    return data


def usage_of(client: FlaskClient, headers: dict[str, str]) -> dict[str, Any]:
    response = client.get("/api/usage", headers=headers)
    assert response.status_code == 200, response.data
    return body(response)


def subscribe_to_everything(account_id: int) -> None:
    """An enabled endpoint for every event type: ``emit`` stores no event that nobody subscribed to."""
    with transaction() as session:
        session.add(
            WebhookEndpoint(
                account_id=account_id,
                url="https://127.0.0.1:9/hook",
                events=list(EVENT_TYPES),
                secret="whsec_test",
            )
        )


def events_of(account_id: int, event_type: str) -> list[dict[str, Any]]:
    with transaction() as session:
        stmt = select(Event.data).where(Event.account_id == account_id, Event.type == event_type)
        return list(session.scalars(stmt.order_by(Event.created_at)))


def periods_of(account_id: int) -> list[UsagePeriod]:
    with transaction() as session:
        stmt = select(UsagePeriod).where(UsagePeriod.account_id == account_id)
        return list(session.scalars(stmt.order_by(UsagePeriod.period_start)))


def count_rows(model: type[Any], account_id: int) -> int:
    with transaction() as session:
        stmt = select(func.count()).select_from(model).where(model.account_id == account_id)
        return session.scalars(stmt).one()


# Five seconds into a minute, far from midnight and from any real "now": windows are predictable.
INSTANT = datetime(2031, 5, 14, 10, 0, 5, tzinfo=UTC)


@pytest.fixture
def at_instant() -> Iterator[datetime]:
    """The service clock frozen at ``INSTANT``; tests move it with ``clock.move``."""
    clock.freeze(INSTANT)
    yield INSTANT
    clock.unfreeze()


def load_account(account_id: int) -> Account:
    with transaction() as session:
        return session.get_one(Account, account_id)


def fill(account_id: int, count: int) -> None:
    """Charge ``count`` validations straight through the service, as earlier traffic would have."""
    charging.charge_validations(load_account(account_id), count, f"fill-{uuid.uuid4().hex}")
