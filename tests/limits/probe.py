"""Fixtures and helpers of the limits and usage tests, and a probe route using the limits as /validate will.

``POST /probe/validate`` is rate limited like ``/validate``: ``@require_scope`` then ``@rate_limited``,
then it charges ``count`` validations (a batch of N) under the ``Idempotency-Key`` header or the request
id. ``GET /probe/boom`` fails with a bug, for a real 500 answer. Everything else is the real app.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Blueprint, Flask, Response, g, jsonify, request
from flask.testing import FlaskClient
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from core import clock
from models.accounts import Account
from models.session import transaction
from models.usage import UsagePeriod
from models.webhooks import Event, WebhookEndpoint
from services.errors import InvalidField
from services.usage import charging
from services.webhooks.events import EVENT_TYPES
from tests.fixtures.db import create_test_app
from web.auth import require_scope
from web.limits import charge, rate_limited

probe = Blueprint("probe", __name__, url_prefix="/probe")


@probe.post("/validate")
@require_scope("validate:write")
@rate_limited
def validate() -> Response:
    count = (request.get_json(silent=True) or {}).get("count", 1)
    if not isinstance(count, int) or not 1 <= count <= 10_000:
        raise InvalidField("count", "count must be a whole number from 1 to 10000.")
    charged = charge(count, request.headers.get("Idempotency-Key") or g.request_id)
    return jsonify({"used": charged.status.used, "replayed": charged.replayed})


@probe.get("/boom")
@require_scope("validate:read")
def boom() -> Response:
    raise RuntimeError("the probe fails on purpose")


def with_probe(app: Flask) -> Flask:
    app.register_blueprint(probe)
    return app


def validate_n(client: FlaskClient, headers: dict[str, str], count: int = 1) -> TestResponse:
    return client.post("/probe/validate", json={"count": count}, headers=headers)


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
def probe_app(database_url: str) -> Flask:
    return with_probe(create_test_app())


@pytest.fixture
def api(probe_app: Flask) -> FlaskClient:
    return probe_app.test_client()


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
