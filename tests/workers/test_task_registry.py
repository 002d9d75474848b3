"""Every beat entry and every task the services send names a task the workers really register."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest

import services
from scheduler.schedule import beat_schedule
from services.broker import TASK_ROUTES
from workers.celery_app import create_celery


def _sent_task_names() -> list[str]:
    """The ``*_TASK`` constants of every services module: the names ``services.broker`` publishes."""
    names = set()
    for info in pkgutil.walk_packages(services.__path__, "services."):
        module = importlib.import_module(info.name)
        names |= {
            value for attr, value in vars(module).items() if attr.endswith("_TASK") and isinstance(value, str)
        }
    return sorted(names)


@pytest.fixture(scope="module")
def registered() -> Any:
    celery = create_celery()
    celery.loader.import_default_modules()
    return celery.tasks


@pytest.mark.parametrize(("name", "entry"), sorted(beat_schedule().items()))
def test_every_beat_entry_wakes_a_registered_task_and_expires_within_its_interval(
    registered: Any, name: str, entry: dict[str, Any]
) -> None:
    assert entry["task"] == name
    assert name in registered
    assert 0 < entry["options"]["expires"] <= entry["schedule"]


def test_the_sweepers_of_every_capability_are_scheduled() -> None:
    assert set(beat_schedule()) == {
        "tasks.audit.fold_audit_counts",
        "tasks.probing.sweep_jobs",
        "tasks.keys.sweep_key_rotation",
        "tasks.monitoring.recheck_due_lists",
        "tasks.resellers.close_commission_months",
        "tasks.resellers.recheck_custom_domains",
        "tasks.retention.purge_expired",
        "tasks.usage.close_ended_periods",
        "tasks.webhooks.sweep_due_deliveries",
    }
    assert beat_schedule()["tasks.keys.sweep_key_rotation"]["schedule"] == 900.0  # spec 3.1 counts days
    assert beat_schedule()["tasks.retention.purge_expired"]["schedule"] == 3600.0


@pytest.mark.parametrize("name", _sent_task_names())
def test_every_task_the_services_send_is_registered(registered: Any, name: str) -> None:
    assert name in registered


def test_lanes_go_to_probes_and_webhook_deliveries_to_webhooks_the_rest_to_default() -> None:
    webhooks = {
        "tasks.webhooks.deliver_event",
        "tasks.webhooks.deliver_one",
        "tasks.webhooks.deliver_some_due",
        "tasks.webhooks.sweep_due_deliveries",
    }
    expected = {name: {"queue": "webhooks"} for name in webhooks}
    probes = {"tasks.probing.drain_lane": {"queue": "probes"}}
    assert dict(TASK_ROUTES) == probes | expected
    # plan_job, drain_lane, send_due_mail, compare_runs and four webhook tasks
    assert len(_sent_task_names()) == 8
