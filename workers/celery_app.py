"""Celery app, queues and delivery guarantees.

Celery here is independent of Flask: tasks call ``services`` directly, which own their database session,
so a worker never builds a web app. Postgres, not the broker, is the record of a job's progress; the
broker only carries "go and look at job X" messages, so every task must be idempotent.
"""

from __future__ import annotations

import gc
import logging

import psycogreen.gevent
from celery import Celery
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    celeryd_init,
    worker_process_init,
    worker_ready,
    worker_shutdown,
    worker_shutting_down,
)
from gevent import monkey

from scheduler.schedule import TASK_MODULES, beat_schedule
from services.broker import message_config
from services.probing.egress import registry
from services.probing.fleet.fleet_engine import shared_engine
from services.probing.upkeep import liveness
from settings import Settings, get_settings
from verifier.config import EngineConfig
from verifier.engine import ready_to_serve
from web import logs
from workers.reconnect import SweepOnReconnect

YOUNG_OBJECTS_BEFORE_COLLECTION = 20_000


def celery_config(settings: Settings) -> dict[str, object]:
    """Celery settings derived from the service settings, so worker, beat and Flower read one environment."""
    return {
        **message_config(settings),
        "result_backend": settings.redis_url,
        "result_expires": 3600,
        "result_backend_transport_options": {"global_keyprefix": settings.redis_key_prefix},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "timezone": "UTC",
        "enable_utc": True,
        "beat_schedule": beat_schedule(),
        "worker_send_task_events": True,  # Flower shows live task state
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


@worker_ready.connect  # type: ignore[untyped-decorator]
def out_of_the_collectors_sight(**_: object) -> None:
    """Ready to serve as the web's workers are (``ready_to_serve``: a probes worker allocates a result's
    objects by the thousand a second, and full collections walked the start-up heap again, a fifth of its
    CPU in the shared-32 list, measured with ``gc.callbacks``); the first generation's threshold is raised
    too, as the young objects of a round are freed by reference counting, not by the collector."""
    ready_to_serve()
    gc.set_threshold(YOUNG_OBJECTS_BEFORE_COLLECTION, *gc.get_threshold()[1:])


@worker_ready.connect  # type: ignore[untyped-decorator]
def alive(sender: object, **_: object) -> None:
    """Registered as alive; the dead of this host buried and their work resumed (``liveness``)."""
    liveness.register(str(getattr(sender, "hostname", "worker")))
    if _probes(sender):  # the fleet counts this process's egresses while it lives (seats per egress)
        registry.register(EngineConfig.from_env().smtp_egress)


def _probes(sender: object) -> bool:
    """Does this worker take ``probes`` messages (SMTP sessions leave from it)?"""
    app = getattr(sender, "app", None)
    consumed = app.amqp.queues.consume_from if app is not None else None
    return consumed is not None and "probes" in consumed


@worker_shutting_down.connect  # type: ignore[untyped-decorator]
def stopping(**_: object) -> None:
    """A warm shutdown waits for the running tasks: lane turns end after their round and hand on."""
    liveness.STOPPING.set()


@worker_shutdown.connect  # type: ignore[untyped-decorator]
def hand_over(**_: object) -> None:
    """Every task done: idle sessions closed (their slots given back), what is still held deleted."""
    keeper = shared_engine().keeper
    if keeper is not None:
        keeper.close_idle(everything=True)
    registry.leave()
    liveness.leave()


@after_setup_logger.connect  # type: ignore[untyped-decorator]
@after_setup_task_logger.connect  # type: ignore[untyped-decorator]
def scrub_secrets(logger: logging.Logger, **_: object) -> None:
    """Celery replaces the root logger's handlers with its own: keep the secret scrub of ``web.logs``."""
    logs.scrub_handlers(logger)


def create_celery(settings: Settings | None = None) -> Celery:
    celery = Celery("verimail", include=[module.__name__ for module in TASK_MODULES])
    celery.conf.update(celery_config(settings or get_settings()))
    celery.steps["consumer"].add(SweepOnReconnect)
    return celery


app = create_celery()
