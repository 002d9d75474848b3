"""A real Redis restart in the middle of a period: no usage is lost and the windows are rebuilt.

The test runs its own ``redis-server`` (no persistence, like production's) on a free port and restarts
that one; the shared Redis on 6379 is never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from flask.testing import FlaskClient

from core import clock
from models.accounts import Tier
from services import redis_client
from settings import get_settings
from tests.fixtures.db import open_persona
from tests.limits.helpers import body, usage_of, validate
from tests.processes import OwnRedis

__all__ = ["OwnRedis", "own_redis"]  # the outage and fault tests import these from here


@pytest.fixture
def own_redis(monkeypatch: pytest.MonkeyPatch) -> Iterator[OwnRedis]:
    server = OwnRedis()
    server.start()
    monkeypatch.setenv("REDIS_URL", server.url)
    get_settings.cache_clear()
    redis_client.reset()
    try:
        yield server
    finally:
        server.stop()
        monkeypatch.undo()
        get_settings.cache_clear()
        redis_client.reset()


def test_usage_survives_a_redis_restart_and_the_windows_are_rebuilt(
    client: FlaskClient, own_redis: OwnRedis, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    for count in (1, 2, 30, 100):
        assert validate(client, growth.headers, count=count).status_code == 200
    clock.move(timedelta(minutes=1))
    for count in (7, 9):
        assert validate(client, growth.headers, count=count).status_code == 200
    assert own_redis.keys() > 0

    own_redis.stop()
    own_redis.start()
    assert own_redis.keys() == 0  # everything Redis held is gone

    usage = usage_of(client, growth.headers)
    assert usage["quota"]["used"] == 149
    assert (usage["rateLimit"]["usedThisMinute"], usage["rateLimit"]["usedToday"]) == (2, 6)
    # The rebuilt minute window still stops the account at 10 in this minute.
    assert [validate(client, growth.headers).status_code for _ in range(9)] == [200] * 8 + [429]
    assert usage_of(client, growth.headers)["quota"]["used"] == 157


def test_while_redis_is_down_validation_answers_503_to_retry_and_other_routes_answer_without_limit_headers(
    client: FlaskClient, own_redis: OwnRedis, at_instant: datetime
) -> None:
    growth = open_persona(Tier.GROWTH)
    own_redis.stop()
    keys = client.get("/api/keys", headers=growth.headers)
    assert keys.status_code == 200
    assert "X-RateLimit-Limit" not in keys.headers
    refused = validate(client, growth.headers)
    assert refused.status_code == 503  # admission is not best effort, and the client may retry
    assert refused.headers["Retry-After"] == "10"
    assert body(refused) == {
        "error": "Service Unavailable",
        "message": "The service is briefly unable to take this request (a backing store is unreachable). "
        "Retry in 10 seconds.",
        "retryAfter": 10,
        "requestId": refused.headers["X-Request-Id"],
    }
    assert "Traceback" not in refused.get_data(as_text=True)
    own_redis.start()
    assert validate(client, growth.headers).status_code == 200
    assert usage_of(client, growth.headers)["quota"]["used"] == 1
