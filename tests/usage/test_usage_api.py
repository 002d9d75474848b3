"""GET /api/usage: every field checked against what the account did, and who may read it."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask.testing import FlaskClient

from core import clock
from models.accounts import Tier
from models.keys import ApiKey
from models.session import transaction
from services.keys import lifecycle
from tests.fixtures.db import Persona, add_key, open_persona
from tests.fixtures.failures import table_missing
from tests.limits.helpers import body, fill, usage_of, validate

GROWTH_FEATURES = ["syntax", "domain", "mxRecords", "disposable", "roleBased", "typoSuggestion"]


def deactivated_key(account_id: int) -> Persona:
    persona = add_key(account_id, "Retired server", ("validate:write",))
    with transaction() as session:
        lifecycle.deactivate(session, session.get_one(ApiKey, persona.key_id), "retired")
    return persona


def test_every_field_reports_what_the_account_did(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    for count in (1, 2, 3):
        assert validate(client, growth.headers, count=count).status_code == 200
    clock.move(timedelta(seconds=30))
    assert validate(client, growth.headers, count=4).status_code == 200
    response = client.get("/api/usage", headers=growth.headers)
    assert response.status_code == 200
    assert body(response) == {
        "period": {
            "start": "2031-05-14T10:00:05.000Z",
            "end": "2031-06-14T10:00:05.000Z",
            "daysRemaining": 31,
        },
        "quota": {
            "limit": 5_000,
            "used": 10,
            "remaining": 4_990,
            "percentage": 0.2,
            "inGracePeriod": False,
            "hardLimit": 6_000,
            "usedByPublishableKeys": 0,
        },
        "rateLimit": {
            "limitPerMinute": 10,
            "limitPerDay": 167,
            "usedThisMinute": 4,
            "usedToday": 4,
            "remainingThisMinute": 6,
            "remainingToday": 163,
            "minuteResetsAt": "2031-05-14T10:01:00.000Z",
            "dayResetsAt": "2031-05-15T00:00:00.000Z",
        },
        "recentErrors": {
            "unauthorized": 0,
            "rateLimited": 0,
            "badRequest": 0,
            "serverError": 0,
            "lastErrorAt": None,
        },
        "plan": {"tier": "growth", "name": "Growth", "features": GROWTH_FEATURES},
        "monitoredLists": {"active": 0, "runsBeforeReset": 0, "validationsBeforeReset": 0},
        "livemode": True,
    }
    assert response.headers["X-RateLimit-Remaining"] == "6"


def test_reading_usage_is_not_usage(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    validate(client, growth.headers)
    for _ in range(12):
        rate = usage_of(client, growth.headers)["rateLimit"]
    assert (rate["usedThisMinute"], rate["usedToday"]) == (1, 1)


def test_the_windows_turn_over_at_the_minute_and_the_day(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    validate(client, growth.headers, count=3)
    clock.move(timedelta(seconds=55))
    rate = usage_of(client, growth.headers)["rateLimit"]
    assert (rate["usedThisMinute"], rate["usedToday"]) == (0, 1)
    assert rate["minuteResetsAt"] == "2031-05-14T10:02:00.000Z"
    clock.move(timedelta(hours=14))
    usage = usage_of(client, growth.headers)
    assert (usage["rateLimit"]["usedToday"], usage["rateLimit"]["dayResetsAt"]) == (
        0,
        "2031-05-16T00:00:00.000Z",
    )
    assert usage["quota"]["used"] == 3  # the month goes on
    assert usage["period"]["daysRemaining"] == 31  # 30 days and 9h59m left, rounded up
    clock.move(timedelta(hours=10))
    assert usage_of(client, growth.headers)["period"]["daysRemaining"] == 30  # 29 days 23h59m


def test_the_grace_period_shows_in_the_quota(client: FlaskClient, at_instant: datetime) -> None:
    pro = open_persona(Tier.PRO)
    fill(pro.account_id, 11_000)
    quota = usage_of(client, pro.headers)["quota"]
    assert quota == {
        "limit": 10_000,
        "used": 11_000,
        "remaining": 0,
        "percentage": 110.0,
        "inGracePeriod": True,
        "hardLimit": 12_000,
        "usedByPublishableKeys": 0,
    }


def test_recent_errors_count_real_401_429_400_and_500_answers(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    retired = deactivated_key(growth.account_id)
    assert client.post("/validate/batch", json={"emails": []}, headers=growth.headers).status_code == 400
    clock.move(timedelta(seconds=1))
    assert [validate(client, growth.headers).status_code for _ in range(11)] == [200] * 9 + [429, 429]
    clock.move(timedelta(seconds=1))
    with table_missing("webhook_endpoints"):
        assert client.get("/webhooks", headers=growth.headers).status_code == 500
    clock.move(timedelta(seconds=1))
    assert validate(client, retired.headers).status_code == 401
    assert validate(client, {"X-API-Key": "sk_live_nobody"}).status_code == 401  # names no account
    assert validate(client, {}).status_code == 401

    errors = usage_of(client, growth.headers)["recentErrors"]
    assert errors == {
        "unauthorized": 1,
        "rateLimited": 2,
        "badRequest": 1,
        "serverError": 1,
        "lastErrorAt": "2031-05-14T10:00:08.000Z",
    }
    assert usage_of(client, open_persona(Tier.GROWTH).headers)["recentErrors"]["rateLimited"] == 0

    clock.move(timedelta(hours=23))
    assert usage_of(client, growth.headers)["recentErrors"]["serverError"] == 1
    clock.move(timedelta(hours=1, minutes=11))
    assert usage_of(client, growth.headers)["recentErrors"] == {
        "unauthorized": 0,
        "rateLimited": 0,
        "badRequest": 0,
        "serverError": 0,
        "lastErrorAt": None,
    }


def test_analytics_keys_and_publishable_keys_may_read_usage(
    client: FlaskClient, at_instant: datetime
) -> None:
    owner = open_persona(Tier.GROWTH)
    fill(owner.account_id, 7)
    analytics = add_key(owner.account_id, "Dashboard", ("analytics:read",))
    for headers in (analytics.headers, {"X-API-Key": owner.publishable}):
        assert usage_of(client, headers)["quota"]["used"] == 7


def test_a_key_without_analytics_read_is_refused(client: FlaskClient, at_instant: datetime) -> None:
    owner = open_persona(Tier.GROWTH)
    member = add_key(owner.account_id, "Member server", ("validate:read", "validate:write"))
    response = client.get("/api/usage", headers=member.headers)
    assert response.status_code == 403
    assert body(response)["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
    assert body(response)["error"]["requiredScope"] == "analytics:read"


def test_an_outsider_sees_only_its_own_usage(client: FlaskClient, at_instant: datetime) -> None:
    owner, outsider = open_persona(Tier.GROWTH), open_persona(Tier.SCALE)
    fill(owner.account_id, 1_234)
    usage = usage_of(client, outsider.headers)
    assert usage["quota"] == {
        "limit": 125_000,
        "used": 0,
        "remaining": 125_000,
        "percentage": 0.0,
        "inGracePeriod": False,
        "hardLimit": 150_000,
        "usedByPublishableKeys": 0,
    }
    assert usage["plan"]["tier"] == "scale"
    assert len(usage["plan"]["features"]) == 10


def test_usage_needs_a_key(client: FlaskClient) -> None:
    response = client.get("/api/usage")
    assert response.status_code == 401
    assert body(response)["error"]["code"] == "MISSING_API_KEY"
