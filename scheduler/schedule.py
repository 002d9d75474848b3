"""The beat schedule: one entry per sweeper task.

Each entry wakes a task that reads due work from Postgres (next webhook attempt, key age, quota period,
expired job leases) and acts on it, so a missed tick delays work by one interval and never loses it.
Later issues add their sweepers here.
"""

from __future__ import annotations

from typing import Any

from settings import get_settings

_JOB_SWEEP_SECONDS = float(get_settings().jobs.sweep_interval)

BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    # Webhook retries are due at minute granularity (spec 6.4); 10 s also bounds the delay of a first attempt
    # whose after-commit nudge was lost. Expiring after one interval keeps a backlog of ticks from piling up
    # while workers are down: one sweep catches everything that is due.
    "webhooks-sweep-due-deliveries": {
        "task": "tasks.webhooks.sweep_due_deliveries",
        "schedule": 10.0,
        "options": {"expires": 10.0},
    },
    # Periods end at each account's own anchor instant, any second of the day. Charges switch to the new
    # period at that instant by themselves; this sweep does the bookkeeping (close, overage, quota.reset)
    # within a minute of it.
    "usage-close-ended-periods": {
        "task": "tasks.usage.close_ended_periods",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    # Key rotation (spec 3.1) is counted in days; every 15 minutes keeps the warnings, day-90 rotations and
    # day-97 deactivations within a quarter of an hour of their moment, and retries queued emails (their
    # backoff starts at 5 minutes). Concurrent or repeated ticks are harmless (services.keys.rotation).
    "rotation-sweep-keys": {
        "task": "tasks.keys.sweep_key_rotation",
        "schedule": 900.0,
        "options": {"expires": 900.0},
    },
    # Retention (services.retention): finished deliveries, their events and sent/failed emails older than
    # OUTBOX_RETENTION_DAYS. Hourly keeps each run small; nothing depends on its exact moment.
    "retention-purge-expired": {
        "task": "tasks.retention.purge_expired",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Validation jobs: groups whose worker died (lease expired), whose message was lost, or whose greylisting
    # retry is due, and bulk lists never planned. A missed tick delays them by one interval, never loses them.
    # Commission reports (services.resellers.commissions): a month closes 10 minutes after it ends; hourly
    # ticks close it within the hour (a reseller asking for it earlier closes it on the spot).
    "resellers-close-commission-months": {
        "task": "tasks.resellers.close_commission_months",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "jobs-sweep": {
        "task": "tasks.jobs.sweep_jobs",
        "schedule": _JOB_SWEEP_SECONDS,
        "options": {"expires": _JOB_SWEEP_SECONDS},
    },
}
