"""The runnable example receiver, run as a customer would, accepts a real delivery and prints it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trustme
from flask.testing import FlaskClient

from tests.fixtures.db import Persona
from tests.processes import free_port

ROOT = Path(__file__).resolve().parents[2]

# Test sends are made by a webhook worker, as in production.
pytestmark = pytest.mark.usefixtures("webhooks_worker")


def wait_until_listening(port: int, process: subprocess.Popen[str]) -> None:
    """Readiness polling (not a timed assertion): the example prints nothing until it is bound."""
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError("the example receiver exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the example receiver did not start")


def test_example_receiver_verifies_and_prints_a_test_event(
    client: FlaskClient, owner: Persona, test_ca: trustme.CA, webhook_env: None, tmp_path: Path
) -> None:
    port = free_port()
    endpoint = client.post(
        "/webhooks",
        json={"url": f"https://localhost:{port}/", "events": ["batch.completed"]},
        headers=owner.headers,
    ).get_json()
    cert = test_ca.issue_cert("localhost")
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    command = [
        sys.executable,
        "examples/webhook_receiver.py",
        "--secret",
        endpoint["secret"],
        "--port",
        str(port),
        "--certfile",
        str(tmp_path / "cert.pem"),
        "--keyfile",
        str(tmp_path / "key.pem"),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        wait_until_listening(port, process)
        outcome = client.post("/webhooks/test", json={"type": "batch.completed"}, headers=owner.headers)
        assert outcome.get_json()["statusCode"] == 200
        assert process.stdout is not None
        printed = json.loads(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert printed["id"] == outcome.get_json()["delivery"]["eventId"]
    assert printed["type"] == "batch.completed"
    assert printed["data"]["batchId"] == "batch_sample"
