"""What a client sees while Postgres or Redis is down: every request that needs the missing store answers
503 with ``Retry-After`` in the flat error shape, within about one connect timeout (never a 500, never a
wait of half a minute), and ``/health`` names the store that is down, within its own deadline.

Stores go down three ways: the test's own ``redis-server`` stopped, this process's Postgres pointed at a
closed port (a stopped server refuses at once), and either pointed at a blackhole (a dead host: connects
wait for their timeout). The shared Postgres and Redis are never touched.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from redis.exceptions import ReadOnlyError
from sqlalchemy.exc import TimeoutError as PoolExhausted
from werkzeug.test import TestResponse

from models.session import CONNECT_TIMEOUT_SECONDS
from services import health
from tests.fixtures.db import Persona
from tests.fixtures.outages import blackhole, postgres_url, redis_url, store_at
from tests.limits.test_redis_restart import OwnRedis, own_redis
from tests.processes import free_port
from web import api
from web.errors import UNAVAILABLE_RETRY_SECONDS

__all__ = ["own_redis"]
QUICK = {"email": "alice@mailbox.test", "options": {"quickMode": True}}
# What a client asks for, one request per capability; each needs Postgres, and each marked True Redis too.
REQUESTS: tuple[tuple[str, str, Any, bool], ...] = (
    ("POST", "/validate", QUICK, True),
    ("POST", "/validate", {"email": "alice@mailbox.test"}, True),
    ("POST", "/validate/batch", {"emails": ["alice@mailbox.test"], "options": {"quickMode": True}}, True),
    ("POST", "/validate/batch", {"emails": ["alice@mailbox.test", "bob@mailbox.test"]}, True),
    ("POST", "/bulk/jobs", ["alice@mailbox.test", "bob@mailbox.test"], True),
    ("GET", "/api/usage", None, True),
    ("POST", "/api/keys", {"name": "Reporting server"}, True),
    ("GET", "/api/keys", None, False),
    ("GET", "/api/audit-log", None, False),
    ("GET", "/webhooks", None, False),
)
SLOWEST = CONNECT_TIMEOUT_SECONDS + 2.0  # one connect timeout, and the work around it


@pytest.fixture
def postgres_refusing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with store_at(monkeypatch, "DATABASE_URL", postgres_url(free_port())):
        yield


def call(client: FlaskClient, persona: Persona, method: str, path: str, body: Any) -> TestResponse:
    return client.open(path, method=method, json=body, headers=persona.headers)


def assert_unavailable(response: TestResponse) -> None:
    """The spec's flat 503: retry after the header's seconds, quote the request id."""
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.headers["Retry-After"] == str(UNAVAILABLE_RETRY_SECONDS)
    assert response.json == {
        "error": "Service Unavailable",
        "message": "The service is briefly unable to take this request (a backing store is unreachable). "
        f"Retry in {UNAVAILABLE_RETRY_SECONDS} seconds.",
        "retryAfter": UNAVAILABLE_RETRY_SECONDS,
        "requestId": response.headers["X-Request-Id"],
    }


def timed(action: Any) -> tuple[Any, float]:
    started = time.monotonic()
    return action(), time.monotonic() - started


def test_with_redis_stopped_what_needs_it_answers_503_and_the_rest_answers_as_usual(
    client: FlaskClient, own_redis: OwnRedis, owner: Persona
) -> None:
    own_redis.stop()
    for method, path, body, needs_redis in REQUESTS:
        response, seconds = timed(lambda m=method, p=path, b=body: call(client, owner, m, p, b))
        assert seconds < 2, (method, path, seconds)
        if needs_redis:
            assert_unavailable(response)
        else:
            assert response.status_code == 200, (method, path, response.json)


def test_with_postgres_refusing_every_request_answers_503(
    client: FlaskClient, owner: Persona, postgres_refusing: None
) -> None:
    for method, path, body, _ in REQUESTS:
        response, seconds = timed(lambda m=method, p=path, b=body: call(client, owner, m, p, b))
        assert seconds < 2, (method, path, seconds)
        assert_unavailable(response)


def test_an_unreachable_postgres_host_costs_one_connect_timeout_then_fails_fast(
    client: FlaskClient, owner: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    with blackhole() as port, store_at(monkeypatch, "DATABASE_URL", postgres_url(port)):
        first, waited = timed(lambda: call(client, owner, "POST", "/validate", QUICK))
        second, at_once = timed(lambda: call(client, owner, "GET", "/api/keys", None))
    assert_unavailable(first)
    assert_unavailable(second)
    assert CONNECT_TIMEOUT_SECONDS - 0.5 < waited < SLOWEST  # not the kernel's two minutes of SYN retries
    assert at_once < 1


def test_an_unreachable_redis_host_costs_one_connect_timeout_then_fails_fast(
    client: FlaskClient, owner: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    with blackhole() as port, store_at(monkeypatch, "REDIS_URL", redis_url(port)):
        first, waited = timed(lambda: call(client, owner, "POST", "/validate", QUICK))
        second, at_once = timed(
            lambda: call(client, owner, "POST", "/validate/batch", {"emails": ["a@b.test"]})
        )
    assert_unavailable(first)
    assert_unavailable(second)
    assert waited < SLOWEST  # was half a minute: each call's retries waited out the timeout again
    assert at_once < 1


@pytest.mark.parametrize(
    "error", [PoolExhausted("QueuePool limit reached"), ReadOnlyError("READONLY replica")]
)
def test_a_store_that_cannot_serve_now_is_a_503_not_a_crash(
    client: FlaskClient, owner: Persona, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    """Every pooled Postgres connection busy past the pool's wait; a Redis left read-only by a failover."""

    def cannot(*_account_and_mode: object) -> None:
        raise error

    monkeypatch.setattr(api.usage, "usage_report", cannot)
    assert_unavailable(client.get("/api/usage", headers=owner.headers))


def test_health_names_redis_when_it_is_stopped(client: FlaskClient, own_redis: OwnRedis) -> None:
    own_redis.stop()
    response = client.get("/health")
    assert response.status_code == 503
    assert response.json == {"status": "degraded", "database": True, "redis": False, "down": ["Redis"]}
    assert response.headers["Retry-After"] == str(UNAVAILABLE_RETRY_SECONDS)


def test_health_names_postgres_when_it_refuses(client: FlaskClient, postgres_refusing: None) -> None:
    response = client.get("/health")
    assert response.status_code == 503
    assert response.json == {"status": "degraded", "database": False, "redis": True, "down": ["Postgres"]}


def test_health_answers_by_its_deadline_when_a_store_does_not(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    with blackhole() as port, store_at(monkeypatch, "DATABASE_URL", postgres_url(port)):
        response, seconds = timed(lambda: client.get("/health"))
    assert response.json["down"] == ["Postgres"]
    assert seconds < health.CHECK_SECONDS + 0.5


def test_health_is_ok_with_nothing_down(client: FlaskClient) -> None:
    response = client.get("/health")
    assert (response.status_code, response.json) == (
        200,
        {"status": "ok", "database": True, "redis": True, "down": []},
    )
