"""Redis stops while groups are being probed: no verdict comes from a check that did not run. Every address
of the faulted batch has the verdict a fault-free run of the same list gave, or none ("unknown"); the
quota is still charged once and ``batch.completed`` delivered once.

The probes hold Redis in their hands when it goes: one session at a time per MX address, spaced, and none
kept between groups, so at any moment some groups wait for their lease (asking Redis every few hundred
milliseconds) and the others release theirs as they finish. Half of the addresses are unknown mailboxes,
so an SMTP check read as "no mail server to ask" would show as valid where the fault-free run said
invalid. Redis here is this module's own ``redis-server``, stopped for a few seconds and started empty.
"""

from __future__ import annotations

import time
from typing import Any

from tests.faults.batches import Outage, assert_batch_lost_nothing, wait_through
from tests.faults.checks import assert_same_or_unknown, results_of
from tests.faults.stack import Stack
from tests.fixtures.db import Persona, open_persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver

# 100 addresses over ten lab domains, an unknown mailbox after every real one: each group of 5 has both.
EMAILS = [
    address
    for user in range(5)
    for domain in range(10)
    for address in (f"user{user:02d}@bench-{domain:03d}.test", f"ghost{user}@bench-{domain:03d}.test")
]
STACK_ENV = {  # read by the ``stack`` fixture (tests/faults/conftest.py)
    "JOB_WINDOW": "20",
    "SMTP_SESSIONS_PER_MX_HOST": "1",
    "SMTP_MIN_SESSION_INTERVAL_MS": "400",
    "SMTP_SESSION_IDLE_SECONDS": "0",
}
OUTAGE_SECONDS = 3.0  # long enough for every waiting group to ask Redis, and the finishing ones to release


def test_redis_stopping_mid_probe_never_changes_a_verdict(
    stack: Stack, private_redis: OwnRedis, owner: Persona, receiver: Receiver
) -> None:
    fault_free = _fault_free_run(stack)
    stack.subscribe(owner, receiver)
    stopped_at: list[float] = []

    def stop() -> None:
        private_redis.stop()
        stopped_at.append(time.monotonic())

    def start() -> None:
        time.sleep(max(0.0, stopped_at[0] + OUTAGE_SECONDS - time.monotonic()))  # the outage's length
        private_redis.start()

    outage = Outage(stop, start, "Connection to broker lost")
    survived = wait_through(stack, owner, outage, EMAILS)

    faulted = assert_batch_lost_nothing(stack, owner, receiver, survived, EMAILS)
    assert_same_or_unknown(fault_free, faulted)
    assert "SMTP probe of bench-" in stack.worker_logs()  # the outage did land on probes in flight


def _fault_free_run(stack: Stack) -> dict[str, Any]:
    """The same list from another account, before any fault: the verdicts to compare with."""
    other = open_persona()
    answer = stack.call("post", "/validate/batch", other, json={"emails": EMAILS})
    assert answer.status_code in (200, 202), answer.text
    body = results_of(stack, other, answer.json()["batchId"], timeout=90)
    assert body["status"] == "completed", body
    return body
