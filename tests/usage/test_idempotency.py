"""A charge is counted once per idempotency key: a redelivered task or a retried request counts nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest
from flask.testing import FlaskClient

from models.accounts import Tier
from models.usage import UsageCharge
from services.usage import charging
from services.usage.errors import QuotaExhausted
from tests.fixtures.db import open_persona
from tests.limits.helpers import body, count_rows, load_account, usage_of, validate


def test_charging_the_same_key_twice_counts_once(database_url: str, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    account = load_account(growth.account_id)
    first = charging.charge_validations(account, 40, "batch_7f3a")
    again = charging.charge_validations(account, 40, "batch_7f3a")
    assert (first.status.used, first.replayed) == (40, False)
    assert (again.status.used, again.replayed) == (40, True)
    assert count_rows(UsageCharge, growth.account_id) == 1


def test_a_redelivery_racing_the_original_counts_once(database_url: str, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    account = load_account(growth.account_id)
    with ThreadPoolExecutor(max_workers=10) as pool:
        charges = list(pool.map(lambda _: charging.charge_validations(account, 25, "job_42"), range(10)))
    assert sorted(charge.replayed for charge in charges) == [False] + [True] * 9
    assert charging.current_status(account).used == 25


def test_keys_are_per_account(database_url: str, at_instant: datetime) -> None:
    first, second = open_persona(Tier.GROWTH), open_persona(Tier.GROWTH)
    charging.charge_validations(load_account(first.account_id), 3, "req_same")
    charge = charging.charge_validations(load_account(second.account_id), 3, "req_same")
    assert (charge.status.used, charge.replayed) == (3, False)


def test_a_retried_http_request_with_its_idempotency_key_is_not_charged_again(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    headers = {**growth.headers, "Idempotency-Key": "client-retry-1"}
    first = validate(client, headers, count=5)
    assert (first.status_code, first.headers["X-RateLimit-Remaining"]) == (200, "9")
    assert usage_of(client, growth.headers)["quota"]["used"] == 5
    retry = validate(client, headers, count=5)
    assert (retry.status_code, retry.headers["Idempotent-Replayed"]) == (200, "true")
    assert body(retry)["batchId"] == body(first)["batchId"]
    assert usage_of(client, growth.headers)["quota"]["used"] == 5


def test_a_refused_charge_leaves_its_key_free_for_a_later_retry(
    database_url: str, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    account = load_account(growth.account_id)
    charging.charge_validations(account, 5_995, "earlier")
    with pytest.raises(QuotaExhausted):
        charging.charge_validations(account, 10, "big-batch")
    assert count_rows(UsageCharge, growth.account_id) == 1
    small = charging.charge_validations(account, 5, "big-batch")
    assert (small.status.used, small.replayed) == (6_000, False)
