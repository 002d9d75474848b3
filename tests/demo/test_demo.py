"""``bin/demo``, run as a person would (its own lab, web server, worker and beat, on a database and Redis
prefix of its own): the default list is cleaned within half a minute with every address settled as the
lab intends, the progress line says what a stalled list waits for, and nothing it made outlives it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import requests

from demo.sample import TRICKY, sample
from demo.storage import database_exists, redis_keys
from demo.timings import table, timings
from tests.demo.terminal import run_in_terminal
from tests.workers.harness import JOB_ENV

ROOT = Path(__file__).resolve().parents[2]
LIST_SECONDS = 30.0  # the default list, from upload to its last address settled
# The verdict ``demo.clean.verdict`` names for each tricky address once the list is done: the greylisted
# address is asked again and found deliverable, the busy one answers 421 to the end.
SETTLED = {
    "alice@mailbox.test": "deliverable",
    "bob@mailbox.test": "deliverable",
    "carol@greylist.test": "deliverable",
    "erin@slow.test": "deliverable",
    "nobody@mailbox.test": "mailbox does not exist",
    "info@mailbox.test": "role account",
    "full@full.test": "mailbox full",
    "gone@disabled.test": "mailbox disabled",
    "suspended@accounts.test": "mailbox disabled",
    "anyone@catchall.test": "catch-all domain",
    "temp@mailinator.com": "disposable",
    "dave@busy.test": "server busy or greylisting (unknown)",
    "alice@dead.test": "not verifiable (unknown)",
    "alice@spamhaus.test": "not verifiable (unknown)",
    "alice@nullmx.test": "domain takes no mail",
    "alice@no-such-domain.test": "domain takes no mail",
    "not an address": "invalid syntax",
    "bob@@mailbox.test": "invalid syntax",
}


@pytest.mark.timeout(300)
def test_the_default_list_is_cleaned_within_half_a_minute_and_every_address_settles_as_the_lab_intends(
    tmp_path: Path,
) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "demo"],
        cwd=ROOT,
        env=_shell_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )

    out = finished.stdout
    assert finished.returncode == 0, out + finished.stderr
    took = re.search(r"the list took ([\d.]+) s, the whole demo ([\d.]+) s", out)
    assert took is not None, out
    print(f"\nbin/demo, default list of 300: cleaned in {took[1]} s, whole demo {took[2]} s")
    assert float(took[1]) < LIST_SECONDS
    assert _table(out) == {**_expected(sample(300)), "all": 300}
    _assert_nothing_left_behind(out, tmp_path)


@pytest.mark.timeout(240)
def test_the_progress_line_names_the_server_the_list_waits_for_and_why(tmp_path: Path) -> None:
    # A busy server's backoff of 4 s holds the list still for longer than the demo waits before it asks
    # why (a value set in the environment wins), so the line shows however loaded the machine is.
    env = _shell_env(tmp_path) | {"SMTP_BACKOFF_SECONDS": "4", "SMTP_BACKOFF_MAX_SECONDS": "4"}
    code, out = run_in_terminal(
        [sys.executable, "-m", "demo", "--count", "30"], cwd=ROOT, env=env, timeout=200
    )

    assert code == 0, out
    retry = timings()["SMTP_GREYLIST_RETRY_AFTER"]
    assert f"waiting for busy.test: server answered 421, asking again after {retry} s" in out
    assert _table(out) == {**_expected(sample(30)), "all": 30}
    _assert_nothing_left_behind(out, tmp_path)


def test_help_is_plain_text_with_every_default_and_the_demo_timings() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "demo", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout

    assert "``" not in shown
    assert "(default: 300)" in shown
    assert "(default: 0.05)" in shown
    assert "SMTP_BACKOFF_SECONDS=1  (service default 30)" in shown
    assert "SMTP_GREYLIST_RETRY_AFTER=1  (service default 300)" in shown


def _shell_env(tmp_path: Path) -> dict[str, str]:
    """This environment as a shell would have it, with temporary files in a folder of the test's own."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    env = {**os.environ, "COLUMNS": "200", "TMPDIR": str(folder)}
    env.pop("REDIS_KEY_PREFIX", None)  # the demo picks its own, as from a shell
    for name in (*JOB_ENV, *(timing.name for timing in table())):
        env.pop(name, None)  # job tests' short timings, set for the whole run, are not a newcomer's shell
    return env


def _expected(addresses: list[str]) -> dict[str, int]:
    """What each address of the sample settles as: people at the bench servers exist unless their name
    says they left (``demo.sample._person``), the tricky ones as ``SETTLED`` says."""
    assert set(TRICKY) == set(SETTLED)
    verdicts = [
        SETTLED.get(address) or ("mailbox does not exist" if address.startswith("left") else "deliverable")
        for address in addresses
    ]
    return dict(Counter(verdicts))


def _table(out: str) -> dict[str, int]:
    """The summary table's rows: verdict -> addresses."""
    rows = re.findall(r"│ ([a-z][a-z ()-]+?) +│ +(\d+) │", out)
    return {name.strip(): int(count) for name, count in rows}


def _assert_nothing_left_behind(out: str, tmp_path: Path) -> None:
    """No process, database, Redis key or file of the demo's is left once it has exited."""
    assert "stopped everything the demo started" in out
    made = re.search(r"service at (http://127\.0\.0\.1:\d+) \(database (\w+), Redis key prefix (\S+)\);", out)
    assert made is not None, out
    base_url, database, prefix = made.groups()
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{base_url}/health", timeout=5)
    assert list((tmp_path / "tmp").iterdir()) == []
    assert not database_exists(database)
    assert redis_keys(prefix) == []
