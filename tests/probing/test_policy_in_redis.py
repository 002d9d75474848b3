"""The Lua scripts that apply the probing policy fleet-wide decide as ``services.probing.fleet.policy`` does:
the turns of a lane's rounds, a new session's admission and the backoff after complaints, asked of real Redis
and of the pure functions in the same states (the fleet simulation in ``bench/`` runs on the latter)."""

from __future__ import annotations

import random
import secrets
import time
from collections import deque

import pytest

from services.probing.fleet import policy, politeness
from services.probing.fleet.policy import Politeness
from services.probing.rounds import lanes
from services.probing.rounds.lanes import LaneRef
from services.redis_client import get_redis, key


def _rules(**changes: float) -> Politeness:
    values: dict[str, float] = {"per_host": 2, "lease_seconds": 30, "interval_seconds": 0}
    values |= {"backoff_seconds": 20, "backoff_max_seconds": 60, "slow_reply_seconds": 5} | changes
    return Politeness(**values)  # type: ignore[arg-type]


def _ip() -> str:
    return f"192.0.2.{secrets.randbelow(250) + 1}-{secrets.token_hex(3)}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_lanes_rounds_take_the_refs_policy_take_round_takes(seed: int, database_url: str) -> None:
    rng, domain = random.Random(seed), f"turns-{secrets.token_hex(4)}.test"
    turns: deque[int] = deque()
    queues: dict[int, deque[tuple[int, int]]] = {}
    for group_id in range(1, 300):
        if rng.random() < 0.6:
            account, size = rng.randint(1, 4), rng.randint(1, 3)
            lanes.push([LaneRef(group_id, domain, account, size)])
            policy.join_turns(turns, queues, account, (group_id, size))
        else:
            most = rng.randint(1, 6)
            expected = policy.take_round(turns, queues, most, _addresses)
            assert lanes.pop_round(domain, most).group_ids == [group for group, _ in expected]
    rest = policy.take_round(turns, queues, 10_000, _addresses)
    assert rest
    assert lanes.pop_round(domain, 10_000).group_ids == [group for group, _ in rest]


def _addresses(ref: tuple[int, int]) -> int:
    """A ref's addresses (``lanes`` encodes them after the group id)."""
    return ref[1]


def test_a_new_sessions_admission_is_what_policy_admission_says(database_url: str) -> None:
    ip, rules = _ip(), _rules(interval_seconds=0.3)
    opened = time.monotonic()
    assert politeness.try_open(ip, rules)[0] is not None
    assert policy.admission(0.0, 0, 0.0, 0.0, rules) == 0

    _, wait = politeness.try_open(ip, rules)  # right after the first: the spacing
    assert _left_of(policy.admission(0.0, 1, 0.3, 0.0, rules), opened, wait)

    time.sleep(0.35)
    assert politeness.try_open(ip, rules)[0] is not None
    time.sleep(0.35)
    assert politeness.try_open(ip, rules) == (None, 0.0)  # every slot taken: poll
    assert policy.admission(0.0, 2, 0.0, 0.0, rules) == policy.FULL

    backed_off = time.monotonic()
    politeness.back_off(ip, rules)
    _, wait = politeness.try_open(ip, rules)
    assert _left_of(policy.admission(0.0, 2, 0.0, policy.backoff_seconds(1, rules), rules), backed_off, wait)


def test_backoffs_double_and_are_remembered_as_policy_says(database_url: str) -> None:
    ip, rules = _ip(), _rules()

    started = time.monotonic()  # each back_off remembers its level anew
    lengths = [politeness.back_off(ip, rules) for _ in range(4)]

    assert lengths == [policy.backoff_seconds(level, rules) for level in (1, 2, 3, 4)] == [20, 40, 60, 60]
    remembered = get_redis().pttl(key("smtp-backoff-level", ip)) / 1000
    assert _left_of(policy.backoff_memory(rules), started, remembered)


def _left_of(seconds: float, since: float, left: float) -> bool:
    """Is ``left`` what remains of ``seconds`` started at about ``since`` (a monotonic reading)? Bounded by
    the time the test has taken since, not by a guess of it: a loaded machine may pause the test between
    two calls for longer than any fixed tolerance. Redis counts in milliseconds."""
    return seconds - (time.monotonic() - since) - 0.001 <= left <= seconds + 0.001
