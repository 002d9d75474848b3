"""Webhook tasks: thin wrappers that find due deliveries in Postgres; safe to run twice, or concurrently.

``sweep_due_deliveries`` runs on every beat tick; ``deliver_event`` is the after-commit nudge for a new
event. Both only say "look now": which attempt is due, and whether it was already made, is decided under
a row lock in ``services.webhooks.delivery``, so a duplicated, late or lost message changes nothing.
"""

from __future__ import annotations

from celery import shared_task

from services.broker import DELIVER_EVENT_TASK
from services.webhooks import delivery
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_due_deliveries() -> int:
    return delivery.deliver_due()


@shared_task(name=DELIVER_EVENT_TASK, ignore_result=True)  # type: ignore[untyped-decorator]
def deliver_event(event_id: str) -> int:
    return delivery.deliver_due(event_id=event_id)


# Retries are due at minute granularity (spec 6.4); 10 s also bounds the delay of a first attempt whose
# after-commit nudge was lost.
BEAT = [Every(sweep_due_deliveries, 10.0)]
