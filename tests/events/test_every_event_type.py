"""Each of the seven event types, produced by the code path that causes it, reaches the receiver signed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from core import clock
from models import Account
from models import session as db_session
from models.accounts import Tier
from services import links
from services.branding import service_brand
from services.usage import charging, period_close
from services.webhooks import delivery, events, payloads
from services.webhooks.errors import UnknownEventType
from tests.fixtures.db import Persona, open_persona
from tests.webhooks.conftest import subscribe
from tests.webhooks.receiver import Receiver
from verifier.results import CheckResult, Severity, ValidationResult


def delivered(receiver: Receiver) -> list[dict[str, Any]]:
    """Run the sweeper, then what the receiver accepted (every delivery must have verified)."""
    delivery.deliver_due()
    assert all(item.verified for item in receiver.received)
    return receiver.events()


def test_key_created_from_the_keys_api_never_carries_the_secret(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: object
) -> None:
    created = client.post(
        "/api/keys", json={"name": "Billing server", "scopes": ["validate:write"]}, headers=owner.headers
    ).get_json()
    [event] = delivered(receiver)
    assert event["type"] == "key.created"
    assert event["data"] == {
        "keyId": created["id"],
        "name": "Billing server",
        "secretKeyLast4": created["secretKey"][-4:],
        "publishableKey": created["publishableKey"],
        "scopes": ["validate:write"],
        "allowedIps": [],
    }
    assert created["secretKey"] not in receiver.received[0].body.decode()


def test_key_disabled_by_delete_and_by_revoke_all(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: object
) -> None:
    spare = client.post("/api/keys", json={"name": "Spare key"}, headers=owner.headers).get_json()
    doomed = client.post("/api/keys", json={"name": "Doomed key"}, headers=owner.headers).get_json()
    client.delete(f"/api/keys/{doomed['id']}", headers=owner.headers)
    client.post("/api/keys/revoke-all", headers=owner.headers)
    disabled = [event["data"] for event in delivered(receiver) if event["type"] == "key.disabled"]
    reasons = {data["keyId"]: data["reason"] for data in disabled}
    assert reasons == {doomed["id"]: "deleted", spare["id"]: "revoke-all", owner.key_id: "revoke-all"}
    assert all(data["disabledAt"].endswith("Z") for data in disabled)


def test_quota_warning_exceeded_and_reset_from_usage_and_the_period_sweep(
    frozen_clock: None, client: FlaskClient, receiver: Receiver
) -> None:
    growth = open_persona(Tier.GROWTH)  # 5,000 validations a month
    subscribe(client, growth, receiver, ["quota.warning", "quota.exceeded", "quota.reset"])
    with db_session.transaction() as session:
        account = session.get_one(Account, growth.account_id)
    charging.charge_validations(account, 4_000, "first-run")
    charging.charge_validations(account, 1_000, "second-run")
    clock.move(timedelta(days=32))
    period_close.close_ended_periods()
    by_type = {event["type"]: event["data"] for event in delivered(receiver)}
    assert list(by_type) == ["quota.warning", "quota.exceeded", "quota.reset"]
    assert (by_type["quota.warning"]["limit"], by_type["quota.warning"]["used"]) == (5_000, 4_000)
    assert by_type["quota.exceeded"]["inGracePeriod"] is True
    assert by_type["quota.exceeded"]["graceLimit"] == 6_000
    assert by_type["quota.reset"]["previousUsage"] == 5_000


def test_validation_completed_and_batch_completed_payloads(
    owner: Persona, receiver: Receiver, subscribed: object
) -> None:
    # The validation and batch paths emit through these builders; calling them directly covers every
    # shape and its delivery without running jobs.
    result = ValidationResult(
        email="jane@example.com",
        input=" jane@example.com",
        is_valid=True,
        score=88,
        severity=Severity.VALID,
        checks={"syntax": CheckResult(check="syntax", passed=True, message="ok")},
    )
    with db_session.transaction() as session:
        events.emit(
            session,
            owner.account_id,
            "validation.completed",
            payloads.validation_completed(result.to_dict(), 120, owner.key_id, service_brand().metadata()),
        )
        counts = {"total": 3, "valid": 1, "invalid": 1, "warning": 1}
        url = links.results_url("b_1")
        data = payloads.batch_completed("b_1", counts, 900, url, service_brand().metadata())
        events.emit(session, owner.account_id, "batch.completed", data)
    validation, batch = delivered(receiver)
    assert validation["data"] == {
        "email": "jane@example.com",
        "isValid": True,
        "score": 88,
        "severity": "valid",
        "checks": {"syntax": True},
        "processingTime": 120,
        "keyId": owner.key_id,
        "metadata": service_brand().metadata(),
    }
    assert batch["data"]["resultsUrl"].endswith("/batches/b_1/results")
    assert {key: batch["data"][key] for key in counts} == counts


def test_unknown_event_type_is_a_programming_error(owner: Persona) -> None:
    with db_session.transaction() as session, pytest.raises(UnknownEventType, match=r"batch\.started"):
        events.emit(session, owner.account_id, "batch.started", {})
