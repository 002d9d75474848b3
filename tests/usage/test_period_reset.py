"""Billing periods: cut at each account's own anchor, closed by the beat task on a controlled clock."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from flask.testing import FlaskClient

from core import clock
from models.accounts import Tier
from services.usage import period_close
from services.usage.periods import Period, period_containing
from tasks.usage import close_ended_periods
from tests.fixtures.db import open_persona
from tests.limits.helpers import events_of, fill, periods_of, subscribe_to_everything, usage_of, validate

ANCHOR = datetime(2031, 5, 14, 10, 0, 5, tzinfo=UTC)  # INSTANT: the accounts below open then
NEXT = datetime(2031, 6, 14, 10, 0, 5, tzinfo=UTC)
AFTER_NEXT = datetime(2031, 7, 14, 10, 0, 5, tzinfo=UTC)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("anchor", "at", "start", "end"),
    [
        (utc(2031, 1, 31, 9), utc(2031, 2, 10), utc(2031, 1, 31, 9), utc(2031, 2, 28, 9)),
        (utc(2031, 1, 31, 9), utc(2031, 3, 1), utc(2031, 2, 28, 9), utc(2031, 3, 31, 9)),  # back to the 31st
        (utc(2032, 1, 30, 9), utc(2032, 2, 29, 12), utc(2032, 2, 29, 9), utc(2032, 3, 30, 9)),  # leap year
        (utc(2031, 5, 14, 10), utc(2031, 6, 14, 9, 59), utc(2031, 5, 14, 10), utc(2031, 6, 14, 10)),
        # the end is exclusive: the anchor instant belongs to the next period
        (utc(2031, 5, 14, 10), utc(2031, 6, 14, 10), utc(2031, 6, 14, 10), utc(2031, 7, 14, 10)),
        (utc(2031, 12, 5), utc(2032, 1, 4), utc(2031, 12, 5), utc(2032, 1, 5)),  # across the year
    ],
)
def test_periods_follow_the_anchor_day_and_time(
    anchor: datetime, at: datetime, start: datetime, end: datetime
) -> None:
    assert period_containing(anchor, at) == Period(start, end)


def test_the_reset_task_closes_the_period_keeps_its_overage_and_announces_the_new_one(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 5_500)
    clock.move(NEXT - at_instant - timedelta(seconds=1))
    close_ended_periods()  # one second early: this account's period has not ended
    assert len(periods_of(growth.account_id)) == 1
    clock.move(timedelta(seconds=1))
    close_ended_periods.apply().get()  # the task as beat runs it (other tests' accounts may close too)

    closed, current = periods_of(growth.account_id)
    assert (closed.period_start, closed.period_end, closed.closed_at) == (ANCHOR, NEXT, NEXT)
    assert (closed.used, closed.quota_limit, closed.overage) == (5_500, 5_000, 500)
    assert (current.period_start, current.period_end) == (NEXT, AFTER_NEXT)
    assert (current.used, current.closed_at) == (0, None)
    assert events_of(growth.account_id, "quota.reset") == [
        {
            "previousUsage": 5_500,
            "newLimit": 5_000,
            "periodStart": "2031-06-14T10:00:05.000Z",
            "periodEnd": "2031-07-14T10:00:05.000Z",
        }
    ]
    usage = usage_of(client, growth.headers)
    assert usage["quota"]["used"] == 0
    assert usage["period"]["start"] == "2031-06-14T10:00:05.000Z"
    close_ended_periods()  # a second tick changes nothing
    assert len(periods_of(growth.account_id)) == 2
    assert len(events_of(growth.account_id, "quota.reset")) == 1


def test_counters_start_again_at_the_anchor_even_before_the_sweep(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 6_000)
    assert validate(client, growth.headers).status_code == 429
    clock.move(NEXT - at_instant)
    allowed = validate(client, growth.headers)
    assert allowed.status_code == 200
    assert "X-Quota-State" not in allowed.headers
    period_close.close_ended_periods()
    closed, current = periods_of(growth.account_id)
    assert (closed.used, closed.overage, current.used) == (6_000, 1_000, 1)


def test_threshold_events_fire_again_in_the_next_period(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 4_000)
    clock.move(NEXT - at_instant)
    period_close.close_ended_periods()
    fill(growth.account_id, 4_000)
    assert [event["used"] for event in events_of(growth.account_id, "quota.warning")] == [4_000, 4_000]


def test_a_sweep_after_an_outage_closes_every_period_that_ended(
    database_url: str, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    subscribe_to_everything(growth.account_id)
    fill(growth.account_id, 4_200)
    clock.move(timedelta(days=95))  # three anchors passed while beat was down
    period_close.close_ended_periods()
    periods = periods_of(growth.account_id)
    assert [period.overage for period in periods] == [0, 0, 0, None]
    # One sweep emits all three at the same frozen instant: the period each announces orders them.
    resets = sorted(events_of(growth.account_id, "quota.reset"), key=lambda event: event["periodStart"])
    assert [event["previousUsage"] for event in resets] == [4_200, 0, 0]
    assert periods[-1].period_start <= clock.now() < periods[-1].period_end


def test_two_sweeps_at_once_close_each_period_once(database_url: str, at_instant: datetime) -> None:
    accounts = [open_persona(Tier.GROWTH) for _ in range(6)]
    for persona in accounts:
        subscribe_to_everything(persona.account_id)
        fill(persona.account_id, 10)
    clock.move(NEXT - at_instant)
    start = threading.Barrier(2)

    def sweep() -> None:
        start.wait()
        period_close.close_ended_periods()

    sweepers = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in sweepers:
        thread.start()
    for thread in sweepers:
        thread.join()
    for persona in accounts:
        assert len(events_of(persona.account_id, "quota.reset")) == 1
        assert [period.closed_at for period in periods_of(persona.account_id)] == [NEXT, None]
