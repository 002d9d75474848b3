"""The Python client meets a real 503 (the service's Redis stopped: admission cannot be counted) and retries
it after the ``Retry-After`` the service sends, once Redis is back. The service runs on a redis-server of
the test's own; the shared one is never touched."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from verimail import Client, RetryPolicy, ServiceUnavailableError

from models.accounts import Tier
from tests.fixtures.db import open_twins
from tests.processes import Gunicorn, OwnRedis, running, start_gunicorn


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def on_own_redis(job_env: dict[str, str], own_redis: OwnRedis, tmp_path: Path) -> Iterator[Gunicorn]:
    with running(start_gunicorn(job_env | {"REDIS_URL": own_redis.url}, tmp_path)) as served:
        yield served


def test_a_503_is_retried_after_retry_after_once_redis_is_back(
    on_own_redis: Gunicorn, own_redis: OwnRedis
) -> None:
    _, key = open_twins(Tier.BUSINESS)
    statuses: list[tuple[float, int]] = []

    def seen(response: httpx.Response) -> None:
        statuses.append((time.monotonic(), response.status_code))

    own_redis.stop()
    impatient = Client(key.secret, base_url=on_own_redis.base_url, retry=RetryPolicy(max_retries=0))
    with impatient, pytest.raises(ServiceUnavailableError) as refused:
        impatient.validate("deliverable@example.com", quick_mode=True)
    back = threading.Timer(2.0, own_redis.start)
    back.start()
    http = httpx.Client(timeout=60, event_hooks={"response": [seen]})
    with Client(key.secret, base_url=on_own_redis.base_url, http_client=http) as client:
        # Quick mode is answered in the web process: no worker listens on this service's own Redis.
        result = client.validate("deliverable@example.com", quick_mode=True)
    back.join()
    http.close()

    asked = float(refused.value.headers["retry-after"])
    assert (refused.value.status, asked) == (503, 10)
    assert [status for _, status in statuses] == [503, 200]
    assert statuses[1][0] - statuses[0][0] >= asked
    assert result["isValid"] is True
