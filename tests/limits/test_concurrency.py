"""Fifty simultaneous requests against 10 per minute: exactly ten pass, on real Redis and Postgres."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from flask import Flask

from models.accounts import Tier
from models.usage import UsageCharge
from tests.fixtures.db import open_persona
from tests.limits.helpers import count_rows, usage_of, validate

CALLERS = 50


def test_fifty_concurrent_requests_against_ten_per_minute_admit_exactly_ten(
    app: Flask, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    start = threading.Barrier(CALLERS)

    def call(_: int) -> tuple[int, str]:
        client = app.test_client()
        start.wait()  # all fifty leave the gate together
        response = validate(client, growth.headers)
        return response.status_code, response.headers.get("X-RateLimit-Remaining", "")

    with ThreadPoolExecutor(max_workers=CALLERS) as pool:
        results = list(pool.map(call, range(CALLERS)))

    statuses = sorted(status for status, _ in results)
    assert statuses == [200] * 10 + [429] * 40
    admitted_remaining = sorted(int(left) for status, left in results if status == 200)
    assert admitted_remaining == list(range(10))  # each admitted request saw its own count
    assert count_rows(UsageCharge, growth.account_id) == 10
    usage = usage_of(app.test_client(), growth.headers)
    assert (usage["rateLimit"]["usedThisMinute"], usage["quota"]["used"]) == (10, 10)
