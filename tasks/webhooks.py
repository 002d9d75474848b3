"""Webhook tasks, all on the ``webhooks`` queue: thin wrappers that find due deliveries in Postgres; safe to
run twice, or concurrently.

``sweep_due_deliveries`` runs on every beat tick and fans out: it asks for up to ``FAN_OUT`` helpers when
more is due, so a backlog (after an outage) is worked through in parallel while the per-account slots of
``services.webhooks.delivery`` keep any one account from taking every worker. ``deliver_event`` is the
after-commit nudge for a new event and ``deliver_one`` the one for a test send or redelivery. All of them
only say "look now": which attempt is due, and whether it was already made, is decided by the claim in
``services.webhooks.delivery``, so a duplicated, late or lost message changes nothing.
"""

from __future__ import annotations

from celery import shared_task

from services.broker import (
    DELIVER_DUE_TASK,
    DELIVER_EVENT_TASK,
    DELIVER_ONE_TASK,
    SWEEP_DELIVERIES_TASK,
    send_task,
)
from services.webhooks import delivery
from tasks.beat import Every

FAN_OUT = 8


@shared_task(name=SWEEP_DELIVERIES_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_due_deliveries() -> int:
    for _ in range(min(delivery.count_due(), FAN_OUT) - 1):
        send_task(DELIVER_DUE_TASK)
    return delivery.deliver_due()


@shared_task(name=DELIVER_DUE_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver_some_due() -> int:
    return delivery.deliver_due()


@shared_task(name=DELIVER_EVENT_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver_event(event_id: str) -> int:
    return delivery.deliver_due(event_id=event_id)


@shared_task(name=DELIVER_ONE_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver_one(delivery_id: int) -> int:
    return delivery.deliver_due(delivery_id=delivery_id, limit=1)


# Retries are due at minute granularity (spec 6.4); 10 s also bounds the delay of a first attempt whose
# after-commit nudge was lost.
BEAT = [Every(sweep_due_deliveries, 10.0)]
