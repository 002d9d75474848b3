"""The clock tests can move, and the Redis client that namespaces every key with the run's prefix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core import clock
from services import redis_client
from settings import get_settings


def test_a_frozen_clock_stands_still_and_moves_on_request(frozen_clock) -> None:
    start = clock.now()
    assert clock.now() == start
    clock.move(timedelta(days=90))
    assert clock.now() - start == timedelta(days=90)
    assert clock.now().tzinfo is UTC


def test_the_clock_refuses_a_naive_time() -> None:
    with pytest.raises(ValueError, match="aware"):
        clock.freeze(datetime(2026, 1, 1))  # naive on purpose


def test_every_redis_key_carries_the_configured_prefix(database_url) -> None:
    name = redis_client.key("test", "counter", 7)
    prefix = get_settings().redis_key_prefix
    assert name == f"{prefix}test:counter:7"
    assert prefix.startswith("vmtest_")  # this run's own namespace, deleted at the end
    client = redis_client.get_redis()
    client.set(name, "1", ex=60)
    assert client.get(name) == "1"


def test_a_threads_own_redis_connection_is_replaced_when_the_server_drops_it(database_url) -> None:
    first = redis_client.run_on_own_connection("CLIENT", "ID")
    assert redis_client.run_on_own_connection("CLIENT", "ID") == first  # kept between commands

    redis_client.get_redis().client_kill_filter(_id=first)

    assert redis_client.run_on_own_connection("CLIENT", "ID") != first  # answered, on a new connection
