"""Two workers running the beat sweeper at the same moment never send the same attempt."""

from __future__ import annotations

import threading

from sqlalchemy import func, select

from models import WebhookAttempt, WebhookDelivery
from models import session as db_session
from services.webhooks import events
from tasks.webhooks import sweep_due_deliveries
from tests.fixtures.db import Persona
from tests.webhooks.conftest import Subscription
from tests.webhooks.receiver import Receiver

EVENTS = 30


def test_two_concurrent_sweeps_send_each_due_attempt_exactly_once(
    owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    with db_session.transaction() as session:
        emitted = [events.emit(session, owner.account_id, "quota.warning", {"n": n}) for n in range(EVENTS)]
    expected_ids = sorted(event.id for event in emitted if event is not None)
    # The receiver holds the first request until a second arrives: with a lock that blocks instead of
    # skipping, the second worker could never send while the first waits, and the gate would not be met.
    receiver.gate = threading.Barrier(2)
    start = threading.Barrier(2)
    sent: list[int] = []

    def worker() -> None:
        start.wait()
        sent.append(sweep_due_deliveries())

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert receiver.gate_met, "the two sweeps never had deliveries in flight at the same time"
    assert sum(sent) == EVENTS
    assert sorted(event["id"] for event in receiver.events()) == expected_ids
    with db_session.transaction() as session:
        attempts = session.scalar(select(func.count()).select_from(WebhookAttempt))
        not_delivered = session.scalar(select(func.count()).where(WebhookDelivery.status != "delivered"))
    assert (attempts, not_delivered) == (EVENTS, 0)
