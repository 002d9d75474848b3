"""Redis restarts, empty, in the middle of a batch a client is waiting on: the client still gets every
result, once, the quota is charged once and ``batch.completed`` is delivered once.

Redis here is this test's own ``redis-server`` (no persistence, like production's): broker, result backend,
rate-limit windows, the engine's caches and session leases and the waiters' wake-up lists all vanish with
it. Postgres is the run's database. The client sends ``POST /validate/batch`` and waits for the answer
(no ``Prefer: respond-async``) while Redis is stopped and started again under the whole stack.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import select

from models.jobs import ValidationJob
from models.session import transaction
from tests.faults.checks import (
    assert_charged_once,
    assert_completed_event_delivered_once,
    assert_one_result_each,
    results_of,
)
from tests.faults.stack import Stack, poll, start_stack
from tests.fixtures.db import Persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver

# 100 mailboxes over ten lab domains: 20 groups of 5, two at a time; one unknown mailbox, one line that
# fails syntax (settled before any group runs).
EMAILS = [f"user{user:02d}@bench-{domain:03d}.test" for user in range(10) for domain in range(10)][:98]
EMAILS += ["nobody@bench-006.test", "not-an-address"]


@pytest.fixture
def stack(
    database_url: str, private_redis: OwnRedis, fault_env: dict[str, str], tmp_path: Path
) -> Iterator[Stack]:
    env = fault_env | {"DATABASE_URL": database_url, "REDIS_URL": private_redis.url}
    started = start_stack(env, tmp_path, "redisfault")
    yield started
    started.stop()


class WaitingClient:
    """``POST /validate/batch`` sent from a thread, answered whenever the service answers it."""

    def __init__(self, stack: Stack, persona: Persona, emails: list[str]) -> None:
        self.answer: requests.Response | None = None
        self.thread = threading.Thread(target=self._send, args=(stack, persona, emails), daemon=True)
        self.thread.start()

    def _send(self, stack: Stack, persona: Persona, emails: list[str]) -> None:
        self.answer = stack.call("post", "/validate/batch", persona, json={"emails": emails})

    def wait(self, timeout: float) -> requests.Response:
        self.thread.join(timeout)
        assert self.answer is not None, "the batch request got no answer"
        return self.answer


def test_a_waited_batch_loses_nothing_when_redis_restarts_in_the_middle(
    stack: Stack, private_redis: OwnRedis, owner: Persona, receiver: Receiver
) -> None:
    stack.subscribe(owner, receiver)
    client = WaitingClient(stack, owner, EMAILS)
    job = poll(lambda: _job_of(owner), _in_the_middle, timeout=30, pause=0.05)
    assert _in_the_middle(job), f"the fault must land mid-batch: {job}"

    private_redis.stop()
    felt = poll(lambda: _outage_felt(stack, client), bool, timeout=20)
    private_redis.start()
    assert felt, "the worker or the waiting request never met the outage"

    answer = client.wait(timeout=90)
    assert answer.status_code in (200, 202), answer.text  # never a 503 for a batch it has charged
    batch_id = answer.json()["batchId"]
    if answer.status_code == 200:
        assert [result["email"] for result in answer.json()["results"]] == [email.lower() for email in EMAILS]
    assert_one_result_each(results_of(stack, owner, batch_id, timeout=60), batch_id, EMAILS)
    assert_charged_once(stack, owner, batch_id, len(EMAILS))
    assert_completed_event_delivered_once(receiver, owner, batch_id)


def _outage_felt(stack: Stack, client: WaitingClient) -> bool:
    """The worker lost its broker, and the waiting request its wake-up list (or was answered)."""
    logs = stack.logs()
    waiter_felt = "Redis unreachable; reading Postgres" in logs or client.answer is not None
    return "Connection to broker lost" in logs and waiter_felt


def _job_of(persona: Persona) -> dict[str, Any] | None:
    """The account's batch as Postgres has it (the client holds no id until it is answered)."""
    stmt = select(ValidationJob.status, ValidationJob.processed, ValidationJob.total)
    with transaction() as session:
        found = session.execute(stmt.where(ValidationJob.account_id == persona.account_id)).one_or_none()
    return None if found is None else found._asdict()


def _in_the_middle(job: dict[str, Any] | None) -> bool:
    """Some groups saved (more than the syntax failure settled by planning), many still to come."""
    return job is not None and job["status"] == "running" and 5 < job["processed"] < job["total"] // 2
