"""A client waiting on ``POST /validate/batch`` while a store fails under it, and what it must end with.

The client sends the batch without ``Prefer: respond-async`` from a thread and waits for the answer; the
test watches the job in Postgres meanwhile (the client holds no id until it is answered).
"""

from __future__ import annotations

import threading
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
    results_of,
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


@dataclass(frozen=True)
class Outage:
    """A store going away and coming back, and what the worker and the waiting request log on meeting it."""

    stop: Callable[[], object]
    start: Callable[[], object]
    worker_sign: str
    waiter_sign: str

    def felt(self, stack: Stack, client: WaitingClient) -> bool:
        """The worker met it, and so did the waiting request (or it was answered first)."""
        waiter_felt = self.waiter_sign in stack.logs() or client.answer is not None
        return self.worker_sign in stack.worker_logs() and waiter_felt


def wait_through(
    stack: Stack, persona: Persona, outage: Outage, emails: list[str] = EMAILS
) -> requests.Response:
    """Send the batch and wait; once the job is in the middle, ``outage`` stops the store, and starts it
    again when the worker and the waiting request have met it. The client's answer."""
    client = WaitingClient(stack, persona, emails)
    progress = poll(lambda: job_progress(persona), in_the_middle, timeout=30, pause=0.05)
    assert in_the_middle(progress), f"the fault must land mid-batch: {progress}"
    stack.mark()
    outage.stop()
    felt = poll(lambda: outage.felt(stack, client), bool, timeout=20)
    outage.start()
    assert felt, "the worker or the waiting request never met the outage"
    return client.wait(timeout=90)


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
    stack: Stack, persona: Persona, receiver: Receiver, answer: requests.Response, emails: list[str] = EMAILS
) -> dict[str, Any]:
    """The waiting client was answered with its results (or, past the wait, their URL; never a 503 for a
    batch it has paid for), every address has one result, one charge, one ``batch.completed``. The
    finished job's results body."""
    assert answer.status_code in (200, 202), answer.text
    batch_id = answer.json()["batchId"]
    if answer.status_code == 200:
        assert [result["email"] for result in answer.json()["results"]] == emails
    body = results_of(stack, persona, batch_id, timeout=60)
    assert_one_result_each(body, batch_id, emails)
    assert_charged_once(stack, persona, batch_id, len(emails))
    assert_completed_event_delivered_once(receiver, persona, batch_id)
    return body
