"""Celery app, queues and delivery guarantees.

Celery here is independent of Flask: tasks call ``services`` directly, which own their database session,
so a worker never builds a web app. Postgres, not the broker, is the record of a job's progress; the
broker only carries "go and look at job X" messages, so every task must be idempotent.
"""

from __future__ import annotations

import logging

import psycogreen.gevent
from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger, celeryd_init, worker_process_init
from gevent import monkey

from scheduler.schedule import BEAT_SCHEDULE
from settings import Settings, get_settings
from web import logs
from workers.queues import TASK_QUEUES, TASK_ROUTES

TASK_MODULES: list[str] = [  # later issues register their task modules here (tasks.<capability>)
    "tasks.webhooks",
    "tasks.usage",
    "tasks.keys",
    "tasks.jobs",
    "tasks.retention",
    "tasks.resellers",
]


def celery_config(settings: Settings) -> dict[str, object]:
    """Celery settings derived from the service settings, so worker, beat and Flower read one environment."""
    return {
        "broker_url": settings.redis_url,
        "result_backend": settings.redis_url,
        "result_expires": 3600,
        # Redis redelivers an unacknowledged task only after this timeout: keep it above the longest task.
        # The key prefix isolates concurrent test runs (and tenants of a shared Redis) from each other.
        "broker_transport_options": {
            "visibility_timeout": 3600,
            "global_keyprefix": settings.redis_key_prefix,
        },
        "result_backend_transport_options": {"global_keyprefix": settings.redis_key_prefix},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_queues": TASK_QUEUES,
        "task_default_queue": "default",
        "task_routes": TASK_ROUTES,
        "task_serializer": "json",
        "accept_content": ["json"],
        "timezone": "UTC",
        "enable_utc": True,
        "beat_schedule": BEAT_SCHEDULE,
        "worker_send_task_events": True,  # Flower shows live task state
        "task_send_sent_event": True,
        "broker_connection_retry_on_startup": True,
    }


@worker_process_init.connect  # type: ignore[untyped-decorator]
@celeryd_init.connect  # type: ignore[untyped-decorator]
def cooperative_postgres(**_: object) -> None:
    """Under the gevent pool, make psycopg2 yield to other greenlets while it waits on Postgres.

    Without this a probe worker's greenlets would all stall behind one slow query; psycopg2 is a C
    extension that gevent's monkey-patching cannot reach.
    """
    if monkey.is_module_patched("socket"):
        psycogreen.gevent.patch_psycopg()


@after_setup_logger.connect  # type: ignore[untyped-decorator]
@after_setup_task_logger.connect  # type: ignore[untyped-decorator]
def scrub_secrets(logger: logging.Logger, **_: object) -> None:
    """Celery replaces the root logger's handlers with its own: keep the secret scrub of ``web.logs``."""
    logs.scrub_handlers(logger)


def create_celery(settings: Settings | None = None) -> Celery:
    celery = Celery("verimail", include=TASK_MODULES)
    celery.conf.update(celery_config(settings or get_settings()))
    return celery


app = create_celery()
