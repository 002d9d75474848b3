"""A client waiting on ``POST /validate/batch`` while a store fails under it, and what it must end with.

The client sends the batch without ``Prefer: respond-async`` from a thread and waits for the answer; the
test watches the job in Postgres meanwhile (the client holds no id until it is answered).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests
from sqlalchemy import select

from models.jobs import ValidationJob
from models.session import transaction
from tests.faults.checks import (
    assert_charged_once,
    assert_completed_event_delivered_once,
    assert_one_result_each,
    finished_soon_after,
)
from tests.faults.stack import Stack, poll
from tests.fixtures.db import Persona
from tests.webhooks.receiver import Receiver

# 100 addresses over ten lab domains: 20 groups of 5, two at a time; one unknown mailbox, one line that
# fails syntax (settled before any group runs).
EMAILS = [f"user{user:02d}@bench-{domain:03d}.test" for user in range(10) for domain in range(10)][:98]
EMAILS += ["nobody@bench-006.test", "not-an-address"]


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


# What the waiting request logs when a store stops answering: it answers 202 with the results URL at once.
WAITER_SIGN = "answering with its results URL"


@dataclass(frozen=True)
class Outage:
    """A store going away and coming back, and what the worker logs on meeting it."""

    stop: Callable[[], object]
    start: Callable[[], object]
    worker_sign: str

    def felt(self, stack: Stack, client: WaitingClient) -> bool:
        """The worker met it, and the waiting request was answered because of it."""
        waiter_felt = WAITER_SIGN in stack.logs() and client.answer is not None
        return self.worker_sign in stack.worker_logs() and waiter_felt


@dataclass(frozen=True)
class Survived:
    """The waiting client's answer, and when (``time.monotonic()``) the store was started again."""

    answer: requests.Response
    back_at: float


def wait_through(stack: Stack, persona: Persona, outage: Outage, emails: list[str] = EMAILS) -> Survived:
    """Send the batch and wait; once the job is in the middle, ``outage`` stops the store, and starts it
    again when the worker has met it and the waiting request was answered: at once, with the results URL
    (202), never held through the outage (a web thread each) nor answered 503 for a batch it paid for."""
    client = WaitingClient(stack, persona, emails)
    progress = poll(lambda: job_progress(persona), in_the_middle, timeout=30, pause=0.05)
    assert in_the_middle(progress), f"the fault must land mid-batch: {progress}"
    stack.mark()
    outage.stop()
    felt = poll(lambda: outage.felt(stack, client), bool, timeout=20)
    outage.start()
    back_at = time.monotonic()
    assert felt, "the worker never met the outage, or the waiting request was held through it"
    answer = client.wait(timeout=0)
    assert answer.status_code == 202, answer.text
    return Survived(answer, back_at)


def job_progress(persona: Persona) -> dict[str, Any] | None:
    """The account's one job as Postgres has it: status, processed, total."""
    stmt = select(ValidationJob.status, ValidationJob.processed, ValidationJob.total)
    with transaction() as session:
        found = session.execute(stmt.where(ValidationJob.account_id == persona.account_id)).one_or_none()
    return None if found is None else found._asdict()


def in_the_middle(progress: dict[str, Any] | None) -> bool:
    """Some groups saved (more than the syntax failures settled while planning), most still to come."""
    if progress is None:
        return False
    return bool(progress["status"] == "running" and 5 < progress["processed"] < progress["total"] // 2)


def assert_batch_lost_nothing(
    stack: Stack, persona: Persona, receiver: Receiver, survived: Survived, emails: list[str] = EMAILS
) -> dict[str, Any]:
    """The batch finished within a minute of the store's return, every address has one result, one
    charge, one ``batch.completed``. The finished job's results body."""
    batch_id = survived.answer.json()["batchId"]
    body = finished_soon_after(stack, persona, batch_id, survived.back_at)
    assert_one_result_each(body, batch_id, emails)
    assert_charged_once(stack, persona, batch_id, len(emails))
    assert_completed_event_delivered_once(receiver, persona, batch_id)
    return body
