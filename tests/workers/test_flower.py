"""Flower, as the Procfile starts it, shows both queues (``default`` and ``probes``) and what waits in them,
under this deployment's Redis key prefix (the broker's ``global_keyprefix``, which Flower reads from the
app's transport options); anywhere but loopback it does not start without a password."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from services.broker import DRAIN_LANE_TASK, PLAN_JOB_TASK, publisher
from tests.processes import ROOT, free_port, start_flower
from workers import flower_access


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


def procfile_flower(**env: str) -> subprocess.CompletedProcess[str]:
    """The Procfile's ``flower`` line, run by a shell as honcho runs it, with ``env`` on top of ours (less
    any FLOWER_BASIC_AUTH of ours)."""
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("flower:"))
    ours = {name: value for name, value in os.environ.items() if name != "FLOWER_BASIC_AUTH"}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["sh", "-c", line.partition(":")[2].strip()],
        cwd=ROOT,
        env=ours | {"PATH": path, "FLOWER_PORT": str(free_port())} | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "where"),
    [
        ({"FLOWER_ADDRESS": "0.0.0.0"}, "on 0.0.0.0"),
        ({"FLOWER_ADDRESS": "::", "FLOWER_BASIC_AUTH": ""}, "on ::"),
        ({"FLOWER_ADDRESS": "192.0.2.1", "FLOWER_BASIC_AUTH": "ops"}, "on 192.0.2.1"),
    ],
)
def test_flower_refuses_a_public_address_without_a_password(env: dict[str, str], where: str) -> None:
    refused = procfile_flower(**env)

    assert refused.returncode == 1
    assert f"flower: refusing to listen {where} without a password" in refused.stderr
    assert "set FLOWER_BASIC_AUTH=user:password" in refused.stderr


def test_on_loopback_flower_asks_for_the_password_it_is_given(
    job_env: dict[str, str], tmp_path: Path
) -> None:
    started = start_flower(job_env | {"FLOWER_BASIC_AUTH": "ops:a long flower password"}, tmp_path)
    try:
        anonymous = requests.get(f"{started.base_url}/workers", timeout=10)
        signed_in = requests.get(
            f"{started.base_url}/workers", auth=("ops", "a long flower password"), timeout=10
        )
    finally:
        started.stop()

    assert anonymous.status_code == 401
    assert signed_in.status_code == 200


@pytest.mark.parametrize(
    ("address", "basic_auth", "refused"),
    [
        ("127.0.0.1", [], False),
        ("::1", [], False),
        ("localhost", [], False),
        ("0.0.0.0", ["ops:secret"], False),
        ("0.0.0.0", [], True),
        ("0.0.0.0", ["ops:"], True),
        ("", [], True),  # Tornado's every interface
        ("::", [""], True),
        ("flower.example.com", [], True),
    ],
)
def test_only_loopback_goes_without_a_password(address: str, basic_auth: list[str], refused: bool) -> None:
    answer = flower_access.refusal(address, unix_socket="", basic_auth=basic_auth, oauth="")

    assert (answer is not None) == refused
