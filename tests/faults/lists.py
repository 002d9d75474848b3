"""A bulk list a store fails under, and what it must end with once the store is back.

The list is uploaded by a new account subscribed to ``batch.completed``; the fault is made once its groups
are being claimed, probed and saved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from models.accounts import Tier
from tests.faults.batches import in_the_middle
from tests.faults.checks import (
    assert_charged_once,
    assert_completed_event_delivered_once,
    assert_one_result_each,
    finished_soon_after,
)
from tests.faults.stack import Stack, poll
from tests.fixtures.db import Persona, open_persona
from tests.webhooks.receiver import Receiver

# 150 mailboxes over ten lab domains (30 groups of 5, two at a time), one unknown mailbox, one repeated
# line and one line that fails syntax (settled while planning, before any group runs).
EMAILS = [f"user{user:02d}@bench-{domain:03d}.test" for user in range(15) for domain in range(10)]
EMAILS += ["nobody@bench-004.test", "User07@bench-003.test", "not-an-address"]
DISTINCT = len(EMAILS) - 1  # User07@bench-003.test is user07@bench-003.test again: one validation


def list_in_the_middle(stack: Stack, receiver: Receiver) -> tuple[Persona, str]:
    """A new account's bulk list, uploaded and watched until its groups are being claimed and saved."""
    owner = open_persona(Tier.BUSINESS)
    stack.subscribe(owner, receiver)
    csv_list = {"Content-Type": "text/csv"}
    upload = stack.call("post", "/bulk/jobs", owner, data="\n".join(EMAILS), headers=csv_list)
    assert upload.status_code == 202, upload.text
    public_id = upload.json()["id"]
    progress = poll(lambda: _progress(stack, owner, public_id), in_the_middle, timeout=30, pause=0.05)
    assert in_the_middle(progress), f"the fault must land mid-job: {progress}"
    return owner, public_id


@dataclass(frozen=True)
class ListFault:
    """A list the fault landed on: whose it is, its id, when the fault ended, what the worker logged."""

    owner: Persona
    public_id: str
    back_at: float
    worker_log: str


def list_through(
    stack: Stack,
    receiver: Receiver,
    stop: Callable[[], object],
    start: Callable[[], object],
    meanwhile: Callable[[Persona, str], object] = lambda _owner, _list: None,
) -> ListFault:
    """A new account's list, uploaded; once it is in the middle, ``stop``, ``meanwhile`` (what to do or see
    during the fault), then ``start``."""
    owner, public_id = list_in_the_middle(stack, receiver)
    stack.mark()
    stop()
    meanwhile(owner, public_id)
    worker_log = stack.worker_logs()
    start()
    return ListFault(owner, public_id, time.monotonic(), worker_log)


def _progress(stack: Stack, persona: Persona, public_id: str) -> dict[str, Any]:
    response = stack.call("get", f"/bulk/jobs/{public_id}", persona)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_list_lost_nothing(stack: Stack, receiver: Receiver, fault: ListFault) -> None:
    """Finished within a minute of the fault's end, one result per line, one charge, one event."""
    body = finished_soon_after(stack, fault.owner, fault.public_id, fault.back_at)
    assert_one_result_each(body, fault.public_id, EMAILS)
    assert_charged_once(stack, fault.owner, fault.public_id, DISTINCT)
    assert_completed_event_delivered_once(receiver, fault.owner, fault.public_id)
