"""``bin/demo``'s Python entry, run as a person would (a subprocess, its own lab, web server, worker and
beat): a small sample list is cleaned as a bulk job and the summary table names the verdicts; once it has
exited, the web server it started answers no more."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_cleans_a_small_list_prints_its_verdicts_and_stops_what_it_started() -> None:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("REDIS_KEY_PREFIX", None)  # the demo picks its own, as from a shell
    finished = subprocess.run(
        [sys.executable, "-m", "demo", "--count", "30", "--latency", "0", "--timeout", "240"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )

    out = finished.stdout
    assert finished.returncode == 0, out + finished.stderr
    assert "30 addresses cleaned" in out
    rows = {name.strip(): int(count) for name, count in re.findall(r"│ ([a-z][a-z ()-]+?) +│ +(\d+) │", out)}
    assert rows["all"] == 30
    assert sum(count for name, count in rows.items() if name != "all") == 30
    assert rows["deliverable"] >= 1
    assert rows["invalid syntax"] == 2  # "not an address", "bob@@mailbox.test"
    assert rows["mailbox does not exist"] >= 1  # nobody@mailbox.test
    assert rows["server busy or greylisting (unknown)"] == 1  # dave@busy.test: 421 on every retry
    assert "stopped everything the demo started" in out
    base_url = re.search(r"service at (http://127\.0\.0\.1:\d+)", out)
    assert base_url is not None
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{base_url.group(1)}/health", timeout=5)
