"""Redis restarts, empty, in the middle of a batch a client is waiting on: the client still gets every
result, once, the quota is charged once and ``batch.completed`` is delivered once.

Redis here is this test's own ``redis-server`` (no persistence, like production's): broker, result backend,
rate-limit windows, the engine's caches and session leases and the waiters' wake-up lists all vanish with
it. Postgres is the run's database. The client sends ``POST /validate/batch`` and waits for the answer
(no ``Prefer: respond-async``) while Redis is stopped and started again under the whole stack.
"""

from __future__ import annotations

from tests.faults.batches import Outage, assert_batch_lost_nothing, wait_through
from tests.faults.stack import Stack
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver


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
