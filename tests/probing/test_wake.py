"""Waking a list's lanes: one drain message per seat, published over one connection, every lane's first
seat before any lane's second (a lane's later seats wait the interval between its new sessions anyway)."""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Iterator

import pytest

from services.broker import DRAIN_LANE_TASK, publisher
from services.probing.jobs import dispatch
from services.redis_client import get_redis
from settings import get_settings


@pytest.fixture
def own_broker_keys(monkeypatch: pytest.MonkeyPatch, database_url: str) -> Iterator[str]:
    """A key prefix of this test's own, so no worker of the run consumes what it publishes."""
    prefix = f"vmtest_wake_{secrets.token_hex(4)}:"
    monkeypatch.setenv("REDIS_KEY_PREFIX", prefix)
    get_settings.cache_clear()
    publisher.cache_clear()
    yield prefix
    get_redis().delete(f"{prefix}probes")
    monkeypatch.undo()
    get_settings.cache_clear()
    publisher.cache_clear()


def _published(prefix: str) -> list[tuple[str, list[object]]]:
    """The probes queue's messages, oldest first: (task, args)."""
    raw = get_redis().lrange(f"{prefix}probes", 0, -1)
    messages = [json.loads(item) for item in reversed(raw)]  # published with LPUSH, consumed from the right
    return [(m["headers"]["task"], json.loads(base64.b64decode(m["body"]))[0]) for m in messages]


def test_seats_are_woken_first_seats_first_in_one_go(own_broker_keys: str) -> None:
    seats = ["mx/192.0.2.1", "mx/192.0.2.1#1", "mx/192.0.2.1#2", "mx/192.0.2.2", "mx/192.0.2.2#1", "one.test"]

    dispatch.wake(*seats)

    woken = [message[1][0] for message in _published(own_broker_keys)]
    assert {task for task, _ in _published(own_broker_keys)} == {DRAIN_LANE_TASK}
    assert woken[:3] == ["mx/192.0.2.1", "mx/192.0.2.2", "one.test"]  # every lane's first seat
    assert woken[3:] == ["mx/192.0.2.1#1", "mx/192.0.2.2#1", "mx/192.0.2.1#2"]
