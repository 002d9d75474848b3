"""Redis restarts in the middle of a batch a client is waiting on: the client is answered 202 at once, the
batch finishes within a minute of Redis' return with every result once, the quota is charged once and
``batch.completed`` is delivered once.

Redis here is this module's own ``redis-server``, in two lives: without persistence (like production's),
where broker, result backend, rate-limit windows, the engine's caches, session leases, lanes and the
waiters' wake-up lists all vanish with it; and with an append-only file, where every key comes back,
the holds of the drains that failed meanwhile too (handed on as soon as Redis answers, not when they
run out). Postgres is the run's database. The client sends ``POST /validate/batch`` and waits for the
answer (no ``Prefer: respond-async``) while Redis is stopped and started again under the whole stack.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults.batches import Outage, assert_batch_lost_nothing, wait_through
from tests.faults.stack import Stack
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver


@pytest.fixture(scope="module", params=["empty", "append-only"])
def private_redis(request: pytest.FixtureRequest) -> Iterator[OwnRedis]:
    """This module's ``redis-server`` (the stack fixture runs on it), coming back empty or with its keys."""
    server = OwnRedis(persistent=request.param == "append-only")
    server.start()
    yield server
    server.stop()


def test_a_waited_batch_loses_nothing_when_redis_restarts_in_the_middle(
    stack: Stack, private_redis: OwnRedis, owner: Persona, receiver: Receiver
) -> None:
    stack.subscribe(owner, receiver)
    restart = Outage(
        stop=private_redis.stop, start=private_redis.start, worker_sign="Connection to broker lost"
    )
    survived = wait_through(stack, owner, restart)
    assert_batch_lost_nothing(stack, owner, receiver, survived)
