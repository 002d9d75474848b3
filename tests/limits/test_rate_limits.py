"""Per-minute and per-day rate limits as a client meets them: headers, 429s, audit, windows turning over."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

from flask.testing import FlaskClient
from sqlalchemy import select

from core import clock
from models.accounts import Tier
from models.audit import AuditEntry, AuditEvent
from models.session import transaction
from tests.fixtures.db import add_key, open_persona
from tests.fixtures.failures import table_missing
from tests.limits.helpers import body, usage_of, validate

NEXT_MINUTE = int(datetime(2031, 5, 14, 10, 1, tzinfo=UTC).timestamp())  # INSTANT's minute ends
MIDNIGHT = int(datetime(2031, 5, 15, tzinfo=UTC).timestamp())


def rate_limit_audit(account_id: int) -> list[AuditEntry]:
    with transaction() as session:
        stmt = select(AuditEntry).where(
            AuditEntry.account_id == account_id, AuditEntry.event == AuditEvent.RATE_LIMITED.value
        )
        return list(session.scalars(stmt))


def test_every_admitted_request_reports_the_minute_window(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    for expected_remaining in (9, 8, 7):
        response = validate(client, growth.headers)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Limit"] == "10"
        assert response.headers["X-RateLimit-Remaining"] == str(expected_remaining)
        assert response.headers["X-RateLimit-Reset"] == str(NEXT_MINUTE)


def test_routes_that_do_not_validate_report_the_window_without_counting(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    validate(client, growth.headers)
    for _ in range(3):
        response = client.get("/api/keys", headers=growth.headers)
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "9"
    assert validate(client, growth.headers).headers["X-RateLimit-Remaining"] == "8"


def test_the_eleventh_request_in_a_minute_gets_429_in_the_flat_shape(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    assert [validate(client, growth.headers).status_code for _ in range(10)] == [200] * 10
    refused = validate(client, growth.headers)
    assert refused.status_code == 429
    assert body(refused) == {
        "error": "Rate Limit Exceeded",
        "message": "Rate limit of 10 requests per minute reached; retry in 55 seconds.",
        "retryAfter": 55,
        "limit": 10,
        "remaining": 0,
        "reset": NEXT_MINUTE,
    }
    assert refused.headers["Retry-After"] == "55"
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert refused.headers["X-RateLimit-Reset"] == str(NEXT_MINUTE)


def test_a_refused_request_does_not_use_up_quota_or_window(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    for _ in range(10):
        validate(client, growth.headers, count=2)
    assert validate(client, growth.headers, count=2).status_code == 429
    usage = usage_of(client, growth.headers)
    assert usage["quota"]["used"] == 20
    assert usage["rateLimit"]["usedThisMinute"] == 10


def test_the_first_refusal_of_a_minute_is_audited_once(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    for _ in range(13):
        validate(client, {**growth.headers, "User-Agent": "loop-client/1.0"})
    entries = rate_limit_audit(growth.account_id)
    assert len(entries) == 1
    entry = entries[0]
    assert (entry.key_id, entry.ip, entry.user_agent) == (growth.key_id, "127.0.0.1", "loop-client/1.0")
    assert entry.details == {
        "window": "minute",
        "retryAfter": 55,
        "limit": 10,
        "remaining": 0,
        "reset": NEXT_MINUTE,
    }
    clock.move(timedelta(minutes=1))
    for _ in range(11):
        validate(client, growth.headers)
    assert len(rate_limit_audit(growth.account_id)) == 2


def test_the_next_minute_admits_again(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    for _ in range(11):
        validate(client, growth.headers)
    clock.move(timedelta(seconds=55))  # exactly the minute boundary
    response = validate(client, growth.headers)
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Remaining"] == "9"


def test_a_spent_day_refuses_until_midnight_in_every_minute(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)  # 10 per minute, 167 per day
    admitted = 0
    while admitted < 167:
        for _ in range(min(10, 167 - admitted)):
            assert validate(client, growth.headers).status_code == 200
            admitted += 1
        clock.move(timedelta(minutes=1))
    last = validate(client, growth.headers)
    assert last.status_code == 429
    seconds_to_midnight = MIDNIGHT - int(clock.now().timestamp())
    assert body(last)["limit"] == 167
    assert body(last)["reset"] == MIDNIGHT
    assert body(last)["retryAfter"] == seconds_to_midnight
    assert last.headers["Retry-After"] == str(seconds_to_midnight)
    assert last.headers["X-RateLimit-Limit"] == "167"
    assert rate_limit_audit(growth.account_id)[-1].details["window"] == "day"
    clock.move(timedelta(seconds=seconds_to_midnight))
    assert validate(client, growth.headers).status_code == 200


def test_late_in_the_day_the_headers_describe_the_day_window(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    for _ in range(16):
        for _ in range(10):
            validate(client, growth.headers)
        clock.move(timedelta(minutes=1))
    response = validate(client, growth.headers)  # 161st today: 6 left today, 9 this minute
    assert response.headers["X-RateLimit-Limit"] == "167"
    assert response.headers["X-RateLimit-Remaining"] == "6"
    assert response.headers["X-RateLimit-Reset"] == str(MIDNIGHT)


def test_a_batch_is_one_request(client: FlaskClient, at_instant: datetime) -> None:
    growth = open_persona(Tier.GROWTH)
    response = validate(client, growth.headers, count=100)
    assert response.status_code == 200
    assert response.headers["X-RateLimit-Remaining"] == "9"
    assert usage_of(client, growth.headers)["quota"]["used"] == 100


def test_accounts_have_separate_windows(client: FlaskClient, at_instant: datetime) -> None:
    first, second = open_persona(Tier.GROWTH), open_persona(Tier.GROWTH)
    for _ in range(10):
        validate(client, first.headers)
    assert validate(client, first.headers).status_code == 429
    assert validate(client, second.headers).status_code == 200


def test_unauthenticated_answers_carry_the_client_windows_not_an_account(client: FlaskClient) -> None:
    response = validate(client, {})
    assert response.status_code == 401
    assert response.headers["X-RateLimit-Limit"] == os.environ["ANONYMOUS_REQUESTS_PER_MINUTE"]
    assert "X-Quota-State" not in response.headers


def test_error_answers_to_an_authenticated_caller_carry_the_headers_too(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth, other = open_persona(Tier.GROWTH), open_persona(Tier.GROWTH)
    reader = add_key(growth.account_id, "Reads results only", ("validate:read",))
    validate(client, growth.headers)
    answers = {
        400: client.post("/validate/batch", json={"emails": "many"}, headers=growth.headers),
        403: client.get("/api/keys", headers=reader.headers),
        404: client.get(f"/api/keys/{other.key_id}", headers=growth.headers),
    }
    with table_missing("webhook_endpoints"):
        answers[500] = client.get("/webhooks", headers=growth.headers)
    for status, response in answers.items():
        assert response.status_code == status
        assert response.headers["X-RateLimit-Limit"] == "10", status
        assert response.headers["X-RateLimit-Reset"] == str(NEXT_MINUTE), status
    assert body(answers[500])["requestId"] == answers[500].headers["X-Request-Id"]
    # The 400 was admitted (a request that validates, with a bad body, is still a request).
    assert answers[400].headers["X-RateLimit-Remaining"] == "8"
    assert answers[404].headers["X-RateLimit-Remaining"] == "8"


def test_unmatched_paths_and_methods_answer_alike_for_everyone_without_checking_the_key(
    client: FlaskClient, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    for response in (
        client.put("/api/keys", headers=growth.headers),
        client.get("/nope", headers=growth.headers),
    ):
        assert response.status_code in (404, 405)
        # docs/decisions.md: no key is checked there, so the client's anonymous window is reported
        assert response.headers["X-RateLimit-Limit"] == os.environ["ANONYMOUS_REQUESTS_PER_MINUTE"]
