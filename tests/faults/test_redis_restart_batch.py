"""Redis restarts, empty, in the middle of a batch a client is waiting on: the client still gets every
result, once, the quota is charged once and ``batch.completed`` is delivered once.

Redis here is this test's own ``redis-server`` (no persistence, like production's): broker, result backend,
rate-limit windows, the engine's caches and session leases and the waiters' wake-up lists all vanish with
it. Postgres is the run's database. The client sends ``POST /validate/batch`` and waits for the answer
(no ``Prefer: respond-async``) while Redis is stopped and started again under the whole stack.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.batches import Outage, assert_batch_lost_nothing, wait_through
from tests.faults.stack import Stack, start_stack
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver


@pytest.fixture(scope="module")
def stack(
    database_url: str,
    private_redis: OwnRedis,
    fault_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    env = fault_env | {"DATABASE_URL": database_url, "REDIS_URL": private_redis.url}
    started = start_stack(env, tmp_path_factory.mktemp("redisfault"), "redisfault")
    yield started
    started.stop()


def test_a_waited_batch_loses_nothing_when_redis_restarts_in_the_middle(
    stack: Stack, private_redis: OwnRedis, owner: Persona, receiver: Receiver
) -> None:
    stack.subscribe(owner, receiver)
    restart = Outage(
        stop=private_redis.stop,
        start=private_redis.start,
        worker_sign="Connection to broker lost",
        waiter_sign="Redis unreachable; reading Postgres",
    )
    answer = wait_through(stack, owner, restart)
    assert_batch_lost_nothing(stack, owner, receiver, answer)
