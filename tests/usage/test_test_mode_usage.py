"""GET /api/usage under a test key: test mode's own validations, windows and errors, and nothing live;
under a live key, nothing of test mode."""

from __future__ import annotations

from datetime import datetime

from flask.testing import FlaskClient

from models.accounts import Tier
from tests.fixtures.db import open_twins
from tests.limits.helpers import fill, usage_of, validate

NO_ERRORS = {"unauthorized": 0, "rateLimited": 0, "badRequest": 0, "serverError": 0, "lastErrorAt": None}


def test_a_test_key_reads_test_mode_usage_only(client: FlaskClient, at_instant: datetime) -> None:
    live, test = open_twins(Tier.GROWTH)
    fill(live.account_id, 5_500)  # live is in its grace period, overage accruing
    assert validate(client, live.headers, count=3).status_code == 200
    assert client.post("/validate/batch", json={"emails": []}, headers=live.headers).status_code == 400
    assert validate(client, test.headers, count=2).status_code == 200
    assert validate(client, test.headers).status_code == 200

    usage = usage_of(client, test.headers)

    assert usage["livemode"] is False
    assert usage["quota"] == {
        "limit": 5_000,
        "used": 3,
        "remaining": 5_000,
        "percentage": 0.0,
        "inGracePeriod": False,
        "hardLimit": 6_000,
        "usedByPublishableKeys": 0,
    }
    assert (usage["rateLimit"]["usedThisMinute"], usage["rateLimit"]["usedToday"]) == (2, 2)
    assert usage["recentErrors"] == NO_ERRORS
    assert usage["period"] == usage_of(client, live.headers)["period"]


def test_a_live_key_never_sees_test_mode_usage(client: FlaskClient, at_instant: datetime) -> None:
    live, test = open_twins(Tier.GROWTH)
    assert validate(client, live.headers).status_code == 200
    assert validate(client, test.headers, count=5).status_code == 200
    assert client.post("/validate/batch", json={"emails": []}, headers=test.headers).status_code == 400

    usage = usage_of(client, live.headers)

    assert usage["livemode"] is True
    assert (usage["quota"]["used"], usage["quota"]["remaining"]) == (1, 4_999)
    assert (usage["rateLimit"]["usedThisMinute"], usage["rateLimit"]["usedToday"]) == (1, 1)
    assert usage["recentErrors"] == NO_ERRORS
    assert usage_of(client, test.headers)["recentErrors"]["badRequest"] == 1


def test_a_test_key_is_never_shown_the_live_quota_in_headers_or_a_dry_run(
    client: FlaskClient, at_instant: datetime
) -> None:
    live, test = open_twins(Tier.GROWTH)
    fill(live.account_id, 5_500)
    assert validate(client, test.headers, count=2).status_code == 200
    csv = {"Content-Type": "text/csv"}

    in_test = validate(client, test.headers)
    dry_run = client.post(
        "/bulk/jobs?dryRun=true", data=b"email\nfree@example.com\n", headers={**test.headers, **csv}
    )

    assert "X-Quota-State" not in in_test.headers
    assert validate(client, live.headers).headers["X-Quota-State"] == "grace"
    assert dry_run.status_code == 200, dry_run.get_json()
    assert dry_run.get_json()["livemode"] is False
    assert dry_run.get_json()["cost"]["validations"] == 0
    assert dry_run.get_json()["cost"]["quota"] == {
        "limit": 5_000,
        "used": 3,
        "remaining": 5_000,
        "hardLimit": 6_000,
    }
