"""Webhook tasks: thin wrappers that find due deliveries in Postgres; safe to run twice, or concurrently.

``sweep_due_deliveries`` runs on every beat tick; ``deliver_event`` is the after-commit nudge for a new
event. Both only say "look now": which attempt is due, and whether it was already made, is decided under
a row lock in ``services.webhooks.delivery``, so a duplicated, late or lost message changes nothing.
"""

from __future__ import annotations

from celery import shared_task

from services.webhooks import delivery


@shared_task(name="tasks.webhooks.sweep_due_deliveries", ignore_result=True)  # type: ignore[untyped-decorator]  # celery has no type hints
def sweep_due_deliveries() -> int:
    return delivery.deliver_due()


@shared_task(name="tasks.webhooks.deliver_event", ignore_result=True)  # type: ignore[untyped-decorator]  # celery has no type hints
def deliver_event(event_id: str) -> int:
    return delivery.deliver_due(event_id=event_id)
