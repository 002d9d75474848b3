"""Flower, as the Procfile starts it, shows both queues (``default`` and ``probes``) and what waits in them,
under this deployment's Redis key prefix (the broker's ``global_keyprefix``, which Flower reads from the
app's transport options)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from services.broker import DRAIN_LANE_TASK, PLAN_JOB_TASK, publisher
from tests.processes import start_flower


@pytest.fixture
def flower(job_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    started = start_flower(job_env, tmp_path)
    try:
        yield started.base_url
    finally:
        started.stop()


def test_flower_shows_both_queues_with_their_waiting_messages(flower: str) -> None:
    # No worker runs in this module: the messages wait in the queues (they name no job and no lane with
    # groups waiting, so are harmless).
    publisher().send_task(DRAIN_LANE_TASK, args=["no-such-lane.invalid"])
    publisher().send_task(PLAN_JOB_TASK, args=[-1])

    page = requests.get(f"{flower}/broker", timeout=10).text

    waiting = dict(re.findall(r'<tr id="(\w+)">\s*<td>\w+</td>\s*<td[^>]*>(\d+)</td>', page))
    assert int(waiting["probes"]) >= 1
    assert int(waiting["default"]) >= 1
