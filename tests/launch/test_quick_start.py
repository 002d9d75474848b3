"""The README's quick start, as a newcomer pastes it into fresh shells: ``bin/run --lab`` in one (the real
launcher: honcho, gunicorn, three Celery workers, beat and Flower against a mail lab), then the account
and ``curl`` lines in another. The commands are read from README.md, so the test breaks when it drifts;
the only change made to them is the web port (8000 may be taken on a shared machine)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from demo.storage import forget_keys, new_key_prefix, own_database
from launch.mail_folder import FOLDER
from tests.docs.markdown import documents_with_runnable_blocks, runnable
from tests.launch.readme import QuickStart, quick_start
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
README_PORT = "127.0.0.1:8000"
# Before a doc's runnable blocks: every curl fails on an HTTP error, and so does the script.
SNIPPET_PRELUDE = """set -euo pipefail
curl() { command curl --fail-with-body --silent --show-error "$@"; }
"""
READY_SECONDS = 180
PASSWORD = "correct horse battery staple"
NOISE = ("SecurityWarning", "superuser privileges", "Inspect method", "Traceback", "ERROR")


@dataclass
class Running:
    """``bin/run --lab`` as the README starts it, on ports, a database and a Redis prefix of its own."""

    proc: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str]
    port: int
    flower_port: int

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def readme() -> QuickStart:
    return quick_start()


@pytest.fixture(scope="module")
def service(readme: QuickStart, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("quick-start")
    with own_database("verimail_quick_start") as database_url:
        env = _fresh_shell(folder, database_url)
        log = folder / "bin-run.log"
        with log.open("wb") as out:
            # Its own session: the Ctrl-C below reaches bash, bin/run and the launcher, as a terminal's does.
            command = ["bash", "-c", readme.start]
            proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
            )
        running = Running(proc, log, env, int(env["PORT"]), int(env["FLOWER_PORT"]))
        try:
            _wait_until_ready(running)
            yield running
        finally:
            _stop(running)
            forget_keys(env["REDIS_KEY_PREFIX"])


@pytest.mark.timeout(300)
def test_the_pasted_quick_start_opens_an_account_and_a_lab_address_comes_back_deliverable(
    service: Running, readme: QuickStart
) -> None:
    pasted = _paste(readme.steps, service)

    answer = pasted.answer
    assert answer["email"] == "alice@mailbox.test"
    assert answer["isValid"] is True
    assert answer["severity"] == "valid"
    assert answer["checks"]["smtp"]["metadata"]["verdict"] == "deliverable"
    assert pasted.keys["KEY"].startswith("sk_live_")


@pytest.mark.timeout(300)
def test_the_quick_start_shows_the_account_and_keeps_its_test_key(
    service: Running, readme: QuickStart
) -> None:
    pasted = _paste(readme.steps, service, email="keeper@example.com")

    account = pasted.account
    assert isinstance(account["accountId"], int)
    assert account["secretKey"] == pasted.keys["KEY"]
    assert account["testSecretKey"] == pasted.keys["TEST_KEY"]
    assert pasted.keys["TEST_KEY"].startswith("sk_test_")
    assert account["testPublishableKey"].startswith("pk_test_")
    answer = requests.post(
        f"{service.api}/validate",
        json={"email": "undeliverable@example.com"},
        headers={"X-API-Key": pasted.keys["TEST_KEY"]},
        timeout=30,
    )
    assert answer.status_code == 200
    assert (answer.json()["livemode"], answer.json()["severity"]) == (False, "invalid")


@pytest.mark.timeout(300)
def test_a_first_exploration_of_a_dozen_calls_is_answered_as_the_readme_says(
    service: Running, readme: QuickStart
) -> None:
    key = _paste(readme.steps, service, email="explorer@example.com").keys["KEY"]
    tries = {"alice@mailbox.test": "valid", **readme.tries}
    assert len(tries) >= 12

    for address, severity in tries.items():
        answer = requests.post(
            f"{service.api}/validate", json={"email": address}, headers={"X-API-Key": key}, timeout=90
        )
        assert answer.status_code == 200, (address, answer.status_code, answer.text)
        assert (answer.json()["email"], answer.json()["severity"]) == (address, severity)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("doc", documents_with_runnable_blocks())
def test_a_docs_runnable_snippets_work_as_pasted(service: Running, readme: QuickStart, doc: str) -> None:
    """The blocks a doc marks runnable, in order in one shell after the quick start's (``KEY`` and
    ``TEST_KEY`` kept); any curl answered with an HTTP error, or any command failing, fails the doc."""
    keys = _paste(readme.steps, service, email=f"snippets-{secrets.token_hex(4)}@example.com").keys
    kept = [f"{name}={shlex.quote(value)}" for name, value in keys.items()]
    steps = [
        f"echo '>>> {block.doc}:{block.line}'\n{_on_port(block.text, service)}" for block in runnable(doc)
    ]
    script = "\n".join([SNIPPET_PRELUDE, *kept, *steps])

    shell = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=service.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert shell.returncode == 0, shell.stdout + shell.stderr


def test_bin_run_says_where_everything_is_and_what_to_run_next(service: Running, readme: QuickStart) -> None:
    out = service.output

    assert f"Listening at: {service.api} (" in out
    assert f"  API        {service.api}/" in out
    assert f"  dashboard  {service.api}/dashboard/" in out
    assert f"  Flower     http://127.0.0.1:{service.flower_port}/" in out
    assert f"  mail       {FOLDER}/  (each email as .eml, and a .txt" in out
    assert _next_steps(out) == [_on_port(step, service) for step in readme.steps]


def test_start_up_shows_no_noise_a_newcomer_would_take_for_an_error(service: Running) -> None:
    out = service.output

    assert [word for word in NOISE if word in out] == []


@dataclass(frozen=True)
class Pasted:
    """What the second shell showed and kept: the account's JSON, the curl's answer, the shell's keys."""

    account: dict[str, Any]
    answer: dict[str, Any]
    keys: dict[str, str]


def _paste(steps: list[str], service: Running, email: str = "you@example.com") -> Pasted:
    """The README's lines in a second fresh shell, the password typed when asked (a second account needs
    another email, the README's is taken by then)."""
    lines = [_on_port(step, service).replace("you@example.com", email) for step in steps]
    script = "\n".join([*lines, 'printf "\\nKEY=%s\\nTEST_KEY=%s\\n" "$KEY" "$TEST_KEY"'])
    shell = subprocess.run(
        ["bash", "-c", script],
        cwd=ROOT,
        env=service.env,
        input=f"{PASSWORD}\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = shell.stdout.splitlines()
    shown = [json.loads(line) for line in lines if line.startswith("{")]
    kept = dict(line.split("=", 1) for line in lines if line.startswith(("KEY=", "TEST_KEY=")))
    assert len(shown) == 2, shell.stdout + shell.stderr
    return Pasted(shown[0], shown[1], kept)


def _on_port(step: str, service: Running) -> str:
    return step.replace(README_PORT, f"127.0.0.1:{service.port}").replace(
        "localhost:8000", f"localhost:{service.port}"
    )


def _next_steps(out: str) -> list[str]:
    """The commands bin/run's ready block tells a newcomer to run next."""
    block = out.split('(README, "Quick start"):\n', 1)[1].split("\n---", 1)[0]
    return [line.removeprefix("  ") for line in block.splitlines()]


def _fresh_shell(folder: Path, database_url: str) -> dict[str, str]:
    """A new shell's environment (none of this test run's settings), with free ports, a database and a
    Redis key prefix of the test's own, and beat's schedule in the test's folder."""
    kept = ("PATH", "HOME", "LANG", "LC_ALL", "USER", "REDIS_URL")
    return {
        **{name: os.environ[name] for name in kept if name in os.environ},
        "DATABASE_URL": database_url,
        "REDIS_KEY_PREFIX": new_key_prefix("vmqs"),
        "PORT": str(free_port()),
        "FLOWER_PORT": str(free_port()),
        "TMPDIR": str(folder),
    }


def _wait_until_ready(running: Running) -> None:
    give_up = time.monotonic() + READY_SECONDS
    while "verimail is ready" not in running.output:
        if running.proc.poll() is not None or time.monotonic() > give_up:
            raise AssertionError(f"bin/run --lab did not get ready:\n{running.output[-5000:]}")
        time.sleep(0.5)


def _stop(running: Running) -> None:
    """Ctrl-C, as a person would; then the web port answers no more."""
    if running.proc.poll() is None:
        os.killpg(running.proc.pid, signal.SIGINT)
        running.proc.wait(60)
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{running.api}/health", timeout=5)


def test_a_dashboard_sign_up_finds_its_link_in_the_mail_folder(service: Running) -> None:
    email = f"newcomer-{secrets.token_hex(4)}@example.com"
    with requests.Session() as browser:
        form_page = browser.get(f"{service.api}/dashboard/sign-up", timeout=30).text
        token = re.search(r'name="csrf_token" value="([^"]+)"', form_page)
        assert token is not None
        form = {"email": email, "tier": "pro", "csrf_token": token[1]}
        answer = browser.post(f"{service.api}/dashboard/sign-up", data=form, timeout=30)
    assert "Check your inbox" in answer.text
    assert "var/mail" in service.output

    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        letters = [path.read_text(errors="replace") for path in FOLDER.glob("*.eml")]
        if mine := [letter for letter in letters if email in letter]:
            assert "/dashboard/verify-email/" in mine[-1]
            return
        time.sleep(0.5)
    raise AssertionError(f"no email to {email} in {FOLDER}")
