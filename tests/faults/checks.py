"""What "lost nothing" means after a fault, checked as a client sees it and in what landed in Postgres:
every address has exactly one result, the quota was charged once, ``batch.completed`` arrived once.

The reads run in the test process against the database the stack uses (the caller points it there).
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import func, select

from models.jobs import JobItem, ValidationJob
from models.session import transaction
from models.usage import UsageCharge
from models.webhooks import Event, WebhookAttempt, WebhookDelivery
from tests.faults.stack import Stack, poll
from tests.fixtures.db import Persona
from tests.webhooks.receiver import Receiver

FINISHED = ("completed", "cancelled", "failed")
RECOVERY_SECONDS = 60.0


def results_of(stack: Stack, persona: Persona, public_id: str, timeout: float) -> dict[str, Any]:
    """The results URL's body once the job has finished (or as it stood at ``timeout``)."""

    def read() -> dict[str, Any]:
        response = stack.call("get", f"/batches/{public_id}/results?limit=1000", persona)
        return response.json() if response.status_code == 200 else {"status": f"HTTP {response.status_code}"}

    return poll(read, lambda body: body["status"] in FINISHED, timeout, pause=0.25)


def finished_soon_after(stack: Stack, persona: Persona, public_id: str, back_at: float) -> dict[str, Any]:
    """The results body once the job finished, which it must within ``RECOVERY_SECONDS`` of the moment
    (``time.monotonic()``) the store answered again: the stack's lease and requeue timers are at ten
    minutes, so a recovery that still waits for them fails here."""
    body = results_of(stack, persona, public_id, timeout=back_at + RECOVERY_SECONDS - time.monotonic())
    progress = f"{body['status']}, {body.get('progress')}"
    assert body["status"] == "completed", f"not finished {RECOVERY_SECONDS:.0f} s after the fault: {progress}"
    return body


def assert_one_result_each(body: dict[str, Any], public_id: str, emails: list[str]) -> None:
    """Completed, and one result per submitted line, in submission order, none twice."""
    assert body["status"] == "completed", body
    assert body["progress"]["processed"] == body["progress"]["total"] == len(emails)
    assert [result["input"] for result in body["results"]] == emails  # each row answered, in order
    with transaction() as session:
        job_id = session.scalars(select(ValidationJob.id).where(ValidationJob.public_id == public_id)).one()
        items = session.execute(select(JobItem.position, JobItem.state).where(JobItem.job_id == job_id)).all()
    assert sorted(item.position for item in items) == list(range(len(emails)))
    assert {item.state for item in items} == {"done"}


def assert_charged_once(stack: Stack, persona: Persona, public_id: str, count: int) -> None:
    """``GET /api/usage`` counts each address once, from one charge under the job's id."""
    usage = stack.call("get", "/api/usage", persona)
    assert usage.status_code == 200, usage.text
    assert usage.json()["quota"]["used"] == count
    with transaction() as session:
        charges = session.execute(
            select(UsageCharge.idempotency_key, UsageCharge.validations).where(
                UsageCharge.account_id == persona.account_id
            )
        ).all()
    assert [tuple(charge) for charge in charges] == [(public_id, count)]


def assert_completed_event_delivered_once(receiver: Receiver, persona: Persona, public_id: str) -> None:
    """One ``batch.completed`` event for the job, one delivery of it with one attempt, one signed POST
    received. The delivery row is read after the receiver saw the POST: a second send would need a second
    claim of that row, which a delivered row never gets."""

    def received() -> list[dict[str, Any]]:
        events = receiver.events()
        return [e for e in events if e["type"] == "batch.completed" and e["data"]["batchId"] == public_id]

    assert poll(received, bool, timeout=45, pause=0.2), "batch.completed never reached the receiver"
    deliveries = poll(lambda: _deliveries(persona.account_id), _all_delivered, timeout=15)
    assert [(status, attempts, tries) for _, status, attempts, tries in deliveries] == [("delivered", 1, 1)]
    [(event_data, _, _, _)] = deliveries
    assert event_data["batchId"] == public_id
    assert len(received()) == 1
    assert all(item.verified for item in receiver.received)


def verdict(result: dict[str, Any]) -> tuple[bool, int, str] | str:
    """What a client acts on: ``isValid``, score and severity; or "unknown" when the result says the
    mailbox could not be checked (the SMTP check unknown, or a group given up: "could not be made")."""
    checks = result["checks"].values()
    smtp_unknown = result["checks"].get("smtp", {}).get("status") == "unknown"
    given_up = any(
        check.get("status") == "unknown" and "could not be made" in check["reason"] for check in checks
    )
    return "unknown" if smtp_unknown or given_up else (result["isValid"], result["score"], result["severity"])


def assert_same_or_unknown(fault_free: dict[str, Any], faulted: dict[str, Any]) -> None:
    """Every address of the faulted run has the fault-free run's verdict, or none ("unknown"): a fault
    never turns into a different confident answer."""
    expected = {result["input"]: verdict(result) for result in fault_free["results"]}
    found = {result["input"]: verdict(result) for result in faulted["results"]}
    assert found.keys() == expected.keys()
    wrong = {
        email: (expected[email], got)
        for email, got in found.items()
        if got not in (expected[email], "unknown")
    }
    assert not wrong, f"fault-free vs faulted verdicts differ: {wrong}"


def _deliveries(account_id: int) -> list[tuple[dict[str, Any], str, int, int]]:
    """Every batch.completed event of the account with each of its deliveries and their attempt rows."""
    tries = (
        select(func.count())
        .select_from(WebhookAttempt)
        .where(WebhookAttempt.delivery_id == WebhookDelivery.id)
        .scalar_subquery()
    )
    stmt = (
        select(Event.data, WebhookDelivery.status, WebhookDelivery.attempt_count, tries)
        .join(WebhookDelivery, WebhookDelivery.event_id == Event.id, isouter=True)
        .where(Event.account_id == account_id, Event.type == "batch.completed")
    )
    with transaction() as session:
        return [tuple(row) for row in session.execute(stmt)]


def _all_delivered(rows: list[tuple[dict[str, Any], str, int, int]]) -> bool:
    return bool(rows) and all(status == "delivered" for _, status, _, _ in rows)
