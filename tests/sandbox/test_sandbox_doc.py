"""docs/sandbox.md's runnable snippets, pasted as a reader does into shells against the running service
(gunicorn, a Celery worker and beat): a sandbox verdict, then a test-mode ``batch.completed`` received on
this machine through ``listen`` by the example receiver. Only the ports (and the folder of the secret file)
differ from the page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.db import open_twins
from tests.launch.snippets import runnable
from tests.processes import ROOT, Gunicorn, free_port
from tests.webhooks.listening import beat, job_env, web, worker

__all__ = ["beat", "job_env", "web", "worker"]
DOC = ROOT / "docs" / "sandbox.md"
READY_SECONDS = 30.0
EVENT_SECONDS = 60.0


class Shell:
    """One pasted block running in its own shell (a terminal left open), its output in a file."""

    def __init__(self, text: str, env: dict[str, str], folder: Path, name: str) -> None:
        self.log = folder / f"{name}.log"
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                ["bash", "-c", text], cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, text: str, seconds: float = READY_SECONDS) -> None:
        give_up = time.monotonic() + seconds
        while text not in self.output():
            if self.proc.poll() is not None or time.monotonic() > give_up:
                raise AssertionError(f"{text!r} never appeared:\n{self.output()}")
            time.sleep(0.1)

    def stop(self) -> None:
        """Ctrl-C, as in a terminal."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(30)


@pytest.fixture
def pasted(web: Gunicorn, worker: object) -> tuple[dict[str, str], dict[str, str]]:
    """The doc's blocks on this service's port, a fresh shell environment with ``TEST_KEY`` exported."""
    _, test = open_twins()
    folder = Path(tempfile.mkdtemp(prefix="vm-sandbox-doc-"))
    port, receiver_port = web.base_url.rsplit(":", 1)[1], str(free_port())
    blocks = {
        name: text.replace("localhost:8000", f"localhost:{port}")
        .replace("4242", receiver_port)
        .replace("listen.secret", str(folder / "listen.secret"))
        for name, text in runnable(DOC).items()
    }
    env = {
        **{name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ},
        "TEST_KEY": test.secret,
        "VERIMAIL_BASE_URL": web.base_url,  # the page's default, http://127.0.0.1:8000, on this test's port
        "FOLDER": str(folder),
    }
    return blocks, env


def run(text: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", text], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_sandbox_verdict_snippet_answers_as_the_page_says(
    pasted: tuple[dict[str, str], dict[str, str]],
) -> None:
    blocks, env = pasted
    answer = json.loads(run(blocks["validate"], env))
    assert answer == {"livemode": False, "isValid": False, "severity": "invalid", "smtp": "undeliverable"}


def test_the_listen_snippets_bring_a_test_mode_batch_completed_to_the_example_receiver(
    pasted: tuple[dict[str, str], dict[str, str]],
) -> None:
    blocks, env = pasted
    folder = Path(env["FOLDER"])
    receiver = Shell(blocks["receiver"], env, folder, "receiver")
    listen = Shell(blocks["listen"], env, folder, "listen")
    try:
        receiver.wait_for("listening on http://127.0.0.1:")
        listen.wait_for("Your webhook signing secret is whsec_")
        batch = json.loads(run(blocks["batch"], env))

        event = _printed_event(receiver, batch["batchId"])
        assert (event["type"], event["data"]["total"]) == ("batch.completed", 3)
        listen.wait_for(f"batch.completed [{event['id']}] --> POST")
        assert "[200]" in listen.output()
    finally:
        listen.stop()
        receiver.stop()


def _printed_event(receiver: Shell, batch_id: str) -> dict[str, Any]:
    """The JSON line the example receiver printed for the batch's event."""
    give_up = time.monotonic() + EVENT_SECONDS
    while time.monotonic() < give_up:
        for line in receiver.output().splitlines():
            if line.startswith("{") and batch_id in line:
                event: dict[str, Any] = json.loads(line)
                return event
        time.sleep(0.2)
    raise AssertionError(f"the receiver printed no event of {batch_id}:\n{receiver.output()}")
