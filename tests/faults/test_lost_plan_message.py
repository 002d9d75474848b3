"""A plan message lost with the broker: Redis restarts empty while a bulk list's plan waits in its queue.
The worker notices its broker connection come back and plans the list at once, not after the requeue time.

The worker is paused (SIGSTOP) before the list is uploaded, and its waiting BRPOP cut off (Redis would
otherwise hand the message to the paused worker's socket at once), so the plan message is surely still
in Redis when Redis stops; the worker resumes once Redis is back, empty. Lease and requeue timers are at
ten minutes (``tests/faults/conftest.py``): a list finished within a minute was planned by the reconnect.
"""

from __future__ import annotations

import os
import signal
import time

import redis

from tests.faults.checks import assert_charged_once, assert_one_result_each, finished_soon_after
from tests.faults.stack import Stack
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis

EMAILS = [f"user{user:02d}@bench-{domain:03d}.test" for user in range(4) for domain in range(5)]


def test_a_list_whose_plan_an_empty_redis_lost_is_planned_when_the_worker_reconnects(
    stack: Stack, private_redis: OwnRedis, owner: Persona
) -> None:
    worker_group = stack.worker.popen.pid
    os.killpg(worker_group, signal.SIGSTOP)
    try:
        cut_off_waiting_consumers(private_redis)
        csv_list = {"Content-Type": "text/csv"}
        sent = stack.call("post", "/bulk/jobs", owner, data="\n".join(EMAILS), headers=csv_list)
        assert sent.status_code == 202, sent.text
        stack.mark()
        private_redis.stop()
        private_redis.start()  # empty: the plan message went with it
    finally:
        os.killpg(worker_group, signal.SIGCONT)
    back_at = time.monotonic()

    list_id = sent.json()["id"]
    body = finished_soon_after(stack, owner, list_id, back_at)
    assert_one_result_each(body, list_id, EMAILS)
    assert_charged_once(stack, owner, list_id, len(EMAILS))
    assert "broker connection made again" in stack.worker_logs()


def cut_off_waiting_consumers(server: OwnRedis) -> None:
    """Close the connections blocked in BRPOP (the paused worker's consumer), so nothing takes the next
    message off its queue."""
    with redis.Redis.from_url(server.url) as client:
        for connection in client.client_list():
            if connection["cmd"] in ("brpop", "blpop", "bzpopmin"):
                client.client_kill_filter(_id=connection["id"])
