"""The monthly quota at 80%, 100% and 120% and one past each, for single requests and batches.

Growth: a quota of 5,000, warning from 4,000, grace from 5,000, 6,000 the last validation that runs.
Usage below the boundary is charged straight through the service; the boundary itself is crossed by
real requests: ``POST /validate`` for one validation, ``POST /validate/batch`` for several, a bulk upload
for more than a batch holds.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from core.times import iso
from models.accounts import Tier
from models.jobs import ValidationJob
from tests.fixtures.db import open_persona
from tests.limits.helpers import body, count_rows, fill, usage_of, validate

PERIOD_END = datetime(2031, 6, 14, 10, 0, 5, tzinfo=UTC)  # a month after INSTANT, the account's anchor


def quota_headers(response: TestResponse) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name.startswith("X-Quota-")}


@pytest.mark.parametrize(
    ("before", "count", "state"),
    [
        (3_998, 1, None),  # 3,999: still normal
        (3_999, 1, "warning"),  # exactly 80%
        (3_999, 2, "warning"),  # one past, as a batch of 2
        (4_000, 1, "warning"),  # one past 80%
        (4_999, 1, "grace"),  # exactly 100%
        (4_990, 10, "grace"),  # 100% reached by a batch
        (5_000, 1, "grace"),  # one past 100%
        (5_999, 1, "blocked"),  # exactly 120%: still runs, nothing more will
        (5_990, 10, "blocked"),  # 120% reached exactly by a batch
    ],
)
def test_requests_up_to_the_hard_limit_run_and_report_their_state(
    client: FlaskClient, at_instant: datetime, before: int, count: int, state: str | None
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, before)
    response = validate(client, growth.headers, count=count)
    assert response.status_code == 200, response.data
    used = before + count
    quota = usage_of(client, growth.headers)["quota"]
    assert quota["used"] == used
    assert quota["inGracePeriod"] is (used >= 5_000)
    headers = quota_headers(response)
    if state is None:
        assert headers == {}
        return
    assert headers["X-Quota-State"] == state
    assert headers["X-Quota-Limit"] == "5000"
    assert headers["X-Quota-Used"] == str(used)
    assert headers["X-Quota-Reset"] == str(int(PERIOD_END.timestamp()))
    assert str(used) in headers["X-Quota-Warning"]


@pytest.mark.parametrize(("before", "count"), [(6_000, 1), (5_999, 2), (5_990, 11), (5_000, 1_001)])
def test_past_the_hard_limit_nothing_runs_and_nothing_is_charged(
    client: FlaskClient, at_instant: datetime, before: int, count: int
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, before)
    refused = validate(client, growth.headers, count=count)
    assert refused.status_code == 429
    seconds_left = int((PERIOD_END - at_instant).total_seconds())
    error = body(refused)["error"]
    # A list (over 100 addresses) is refused while it streams in, before it is counted whole.
    assert error.pop("message") == (
        f"Monthly quota exhausted: the list holds at least {count} addresses and {6_000 - before} of 6000 "
        "validations (120% of 5000) remain. Nothing was stored or charged; the quota resets at "
        f"{iso(PERIOD_END)}."
        if count > 100
        else f"Monthly quota exhausted: {before} of 6000 validations used (120% of 5000); this request "
        f"needs {count}, {6_000 - before} remain. The quota resets at {iso(PERIOD_END)}."
    )
    assert {"error": error} == {
        "error": {
            "code": "RATE_LIMIT_EXCEEDED",
            "retryAfter": seconds_left,
            "limit": 5_000,
            "used": before,
            "hardLimit": 6_000,
            "requested": count,
            "resetsAt": iso(PERIOD_END),
        }
    }
    assert refused.headers["Retry-After"] == str(seconds_left)
    assert quota_headers(refused)["X-Quota-Used"] == str(before)
    assert usage_of(client, growth.headers)["quota"]["used"] == before
    assert count_rows(ValidationJob, growth.account_id) == 0  # nothing was stored to run later either


def test_every_authenticated_response_carries_the_quota_warning(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, 4_500)
    response = client.get("/api/keys", headers=growth.headers)
    assert response.status_code == 200
    assert quota_headers(response) == {
        "X-Quota-State": "warning",
        "X-Quota-Limit": "5000",
        "X-Quota-Used": "4500",
        "X-Quota-Reset": str(int(PERIOD_END.timestamp())),
        "X-Quota-Warning": "4500 of 5000 monthly validations used (90%); the grace period starts at 5000.",
    }
    fill(growth.account_id, 1_000)
    grace = quota_headers(client.get("/api/usage", headers=growth.headers))
    assert grace["X-Quota-State"] == "grace"
    assert grace["X-Quota-Warning"] == (
        "5500 of 5000 monthly validations used (110%); grace period, overage is billed; "
        "validations past 6000 are refused."
    )
