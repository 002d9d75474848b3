"""Flower, as the Procfile starts it, shows both queues (``default`` and ``probes``) and what waits in them,
under this deployment's Redis key prefix (the broker's ``global_keyprefix``, which Flower reads from the
app's transport options)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests

from services.broker import DRAIN_LANE_TASK, PLAN_JOB_TASK, publisher
from tests.workers.harness import ROOT


@pytest.fixture
def flower(job_env: dict[str, str]) -> Iterator[str]:
    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "celery",
        "--app",
        "workers",
        "flower",
        "--address=127.0.0.1",
        f"--port={port}",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, env=job_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_listening(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(15)


def test_flower_shows_both_queues_with_their_waiting_messages(flower: str) -> None:
    # No worker runs in this module: the messages wait in the queues (they name no job and no lane with
    # groups waiting, so are harmless).
    publisher().send_task(DRAIN_LANE_TASK, args=["no-such-lane.invalid"])
    publisher().send_task(PLAN_JOB_TASK, args=[-1])

    page = requests.get(f"{flower}/broker", timeout=10).text

    waiting = dict(re.findall(r'<tr id="(\w+)">\s*<td>\w+</td>\s*<td[^>]*>(\d+)</td>', page))
    assert int(waiting["probes"]) >= 1
    assert int(waiting["default"]) >= 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(url: str, process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        assert process.poll() is None, "flower exited"
        try:
            requests.get(url, timeout=1)
        except requests.ConnectionError:
            time.sleep(0.2)
        else:
            return
    raise AssertionError("flower never listened")
