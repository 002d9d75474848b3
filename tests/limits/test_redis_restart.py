"""A real Redis restart in the middle of a period: no usage is lost and the windows are rebuilt.

The test runs its own ``redis-server`` (no persistence, like production's) on a free port and restarts
that one; the shared Redis on 6379 is never touched.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
import redis
from flask.testing import FlaskClient

from core import clock
from models.accounts import Tier
from services import redis_client
from settings import get_settings
from tests.fixtures.db import open_persona
from tests.limits.helpers import body, usage_of, validate


class OwnRedis:
    """One ``redis-server`` process that keeps nothing on disk, started and restarted by this test."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        for _ in range(200):  # readiness, not a timed assertion: wait until it answers
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def keys(self) -> int:
        return int(redis.Redis.from_url(self.url).dbsize())


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
