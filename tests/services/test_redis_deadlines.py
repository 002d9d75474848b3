"""Every Redis wait has a deadline, and a wait longer than the socket timeout is made of shorter ones.

Real Redis: redis-py does not stretch its socket timeout for a blocking command, so a lane lingering for
a push longer than ``REDIS_SOCKET_TIMEOUT`` must not send one BLPOP that long."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from services import redis_client
from services.probing.rounds import lane_runs, lanes
from services.probing.rounds.lanes import LaneRef
from settings import ConfigError, Settings, get_settings
from verifier.config import EngineConfig


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("REDIS_SOCKET_TIMEOUT", "3")
    get_settings.cache_clear()
    redis_client.reset()
    yield
    monkeypatch.delenv("REDIS_SOCKET_TIMEOUT")
    get_settings.cache_clear()
    redis_client.reset()


def test_the_client_carries_the_configured_deadline(short_timeout: None) -> None:
    kwargs = redis_client.get_redis().connection_pool.connection_kwargs
    assert (kwargs["socket_timeout"], kwargs["socket_connect_timeout"]) == (3.0, 3.0)


def test_a_lane_lingers_past_the_socket_timeout_and_still_takes_a_late_push(short_timeout: None) -> None:
    domain = f"linger-{uuid.uuid4().hex[:8]}.test"
    token = lanes.take(domain)
    assert token is not None
    ref = LaneRef(group_id=77, lane=domain, account_id=1, addresses=1)
    late = threading.Timer(3.5, lanes.push, [[ref]])
    late.start()
    try:
        config = EngineConfig(smtp_max_rcpt_per_session=10, smtp_session_idle=5.0)
        assert lane_runs._next_round(domain, config, seats=1).group_ids == [77]
    finally:
        late.join()
        lanes.let_go(domain, token)


@pytest.mark.parametrize("raw", ["2", "0", "-1", "soon", "inf"])
def test_a_socket_timeout_too_short_for_a_blocking_wait_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="REDIS_SOCKET_TIMEOUT"):
        Settings.from_env({"REDIS_SOCKET_TIMEOUT": raw})
