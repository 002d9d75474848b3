"""A lane's hold lives as long as its process keeps it: renewed in the background past its own time,
gone within that time once dropped (a drain that ended, a worker killed), lost to whoever took the lane
meanwhile, and taken again when Redis came back empty."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator

import pytest

from services.probing.rounds import lanes
from services.probing.rounds.lanes import LaneRef
from services.probing.upkeep.holds import Holds
from tests.limits.test_redis_restart import OwnRedis, own_redis

__all__ = ["own_redis"]
SECONDS = 2


def _held_lane() -> tuple[str, str]:
    domain = f"hold-{secrets.token_hex(4)}.test"
    lanes.push([LaneRef(1, domain, 7, 1)])
    token = lanes.take(domain)
    assert token is not None
    return domain, token


@pytest.fixture
def keep() -> Iterator[Callable[[str, str], Holds]]:
    """``keep(domain, token)``: holds of this test's own keeping the lane, dropped when the test ends
    however it ends. A hold still kept is renewed by its thread for the rest of the process, into whatever
    Redis the client points at by then: a later test's own restarted ``redis-server`` found it there."""
    kept: list[tuple[Holds, str]] = []

    def kept_by_a_holds(domain: str, token: str) -> Holds:
        holds = Holds(SECONDS)
        holds.keep(lanes.owner_key(domain), token)
        kept.append((holds, lanes.owner_key(domain)))
        return holds

    yield kept_by_a_holds
    for holds, key in kept:
        holds.drop(key)


def test_a_kept_hold_is_renewed_past_its_time_and_a_dropped_one_runs_out(
    database_url: str, keep: Callable[[str, str], Holds]
) -> None:
    domain, token = _held_lane()
    holds = keep(domain, token)
    holds.renew()  # from now on the hold lasts SECONDS unless renewed

    time.sleep(SECONDS * 1.5)
    assert lanes.owners([domain]) == {domain: token}

    holds.drop(lanes.owner_key(domain))
    time.sleep(SECONDS * 1.5)
    assert lanes.owners([domain]) == {domain: None}


def test_a_hold_someone_else_took_is_lost_and_left_to_them(
    database_url: str, keep: Callable[[str, str], Holds]
) -> None:
    domain, token = _held_lane()
    holds = keep(domain, token)
    lanes.let_go(domain, token)  # as if ours had run out: the lane is handed on
    newer = lanes.take(domain)
    assert newer is not None

    holds.renew()

    assert holds.lost(lanes.owner_key(domain))
    assert lanes.owners([domain]) == {domain: newer}


def test_a_hold_that_vanished_with_redis_is_taken_again(
    own_redis: OwnRedis, keep: Callable[[str, str], Holds]
) -> None:
    domain, token = _held_lane()
    holds = keep(domain, token)
    own_redis.stop()
    own_redis.start()  # empty
    assert lanes.owners([domain]) == {domain: None}

    holds.renew()

    assert not holds.lost(lanes.owner_key(domain))
    assert lanes.owners([domain]) == {domain: token}
