"""quota.warning and quota.exceeded: produced once per period, at their thresholds, with spec 6.3 payloads."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from flask.testing import FlaskClient
from sqlalchemy import select

from core import clock
from models.accounts import Tier
from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from services.usage import charging
from services.usage.errors import QuotaExhausted
from tests.fixtures.db import open_persona
from tests.limits.helpers import events_of, fill, load_account, subscribe_to_everything, validate

PERIOD_END = "2031-06-14T10:00:05.000Z"  # INSTANT + 1 month: 31 days


def test_crossing_80_percent_sends_one_warning_with_its_projection(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 3_999)
    assert events_of(growth.account_id, "quota.warning") == []
    clock.move(timedelta(days=10))  # 10 of the period's 31 days have passed
    validate(client, growth.headers)
    validate(client, growth.headers, count=5)
    assert events_of(growth.account_id, "quota.warning") == [
        {
            "limit": 5_000,
            "used": 4_000,
            "remaining": 1_000,
            "percentage": 80.0,
            "daysRemaining": 21,
            "projectedUsage": 12_400,  # 4,000 in 10 days -> 12,400 in 31
        }
    ]
    assert events_of(growth.account_id, "quota.exceeded") == []


def test_reaching_100_percent_sends_one_exceeded_as_grace_begins(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 4_999)
    for _ in range(3):
        assert validate(client, growth.headers).status_code == 200
    assert events_of(growth.account_id, "quota.exceeded") == [
        {"limit": 5_000, "used": 5_000, "graceLimit": 6_000, "inGracePeriod": True, "resetsAt": PERIOD_END}
    ]
    assert len(events_of(growth.account_id, "quota.warning")) == 1


def test_a_batch_jumping_both_thresholds_sends_both(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 3_950)
    assert validate(client, growth.headers, count=100).status_code == 200  # 4,050: warning
    assert validate(client, growth.headers, count=1_000).status_code == 202  # a list, 5,050: exceeded
    (warning,) = events_of(growth.account_id, "quota.warning")
    (exceeded,) = events_of(growth.account_id, "quota.exceeded")
    assert (warning["used"], exceeded["used"]) == (4_050, 5_050)

    other = open_persona(Tier.GROWTH)
    subscribe_to_everything(other.account_id)
    fill(other.account_id, 3_000)
    assert validate(client, other.headers, count=2_500).status_code == 202  # 3,000 -> 5,500 in one list
    assert [event["used"] for event in events_of(other.account_id, "quota.warning")] == [5_500]
    assert [event["used"] for event in events_of(other.account_id, "quota.exceeded")] == [5_500]


def test_concurrent_charges_cross_each_threshold_exactly_once(
    database_url: str, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 3_950)
    account = load_account(growth.account_id)

    def charge(_: int) -> int:
        return charging.charge_validations(account, 100, uuid.uuid4().hex).status.used

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = sorted(pool.map(charge, range(20)))
    assert results == list(range(4_050, 5_951, 100))  # every charge saw its own exact total
    assert len(events_of(growth.account_id, "quota.warning")) == 1
    assert len(events_of(growth.account_id, "quota.exceeded")) == 1


def test_concurrent_charges_never_pass_the_hard_limit(database_url: str, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 5_900)
    account = load_account(growth.account_id)

    def charge(_: int) -> bool:
        try:
            charging.charge_validations(account, 10, uuid.uuid4().hex)
        except QuotaExhausted:
            return False
        return True

    with ThreadPoolExecutor(max_workers=30) as pool:
        admitted = list(pool.map(charge, range(30)))
    assert admitted.count(True) == 10
    assert charging.current_status(account).used == 6_000


def test_the_first_refusal_at_the_hard_limit_is_audited_once_per_period(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 6_000)
    for _ in range(3):
        assert validate(client, growth.headers).status_code == 429
    with transaction() as session:
        entries = list(
            session.scalars(
                select(AuditEntry).where(
                    AuditEntry.account_id == growth.account_id,
                    AuditEntry.event == AuditEvent.RATE_LIMITED.value,
                )
            )
        )
    assert len(entries) == 1
    assert entries[0].key_id == growth.key_id
    assert entries[0].details["window"] == "month"
    assert entries[0].details["used"] == 6_000
    assert entries[0].occurred_at == datetime(2031, 5, 14, 10, 0, 5, tzinfo=UTC)
