"""Monitored lists run through the real stack: the API over HTTP, a worker on every queue (it probes the
lab, compares runs and delivers events to a live HTTPS receiver), the mail lab's DNS changed mid-test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import start_worker
from tests.webhooks.conftest import ca_bundle, receiver, test_ca, webhook_env
from tests.workers.harness import Worker, job_env, live_api

__all__ = ["ca_bundle", "job_env", "live_api", "receiver", "test_ca", "webhook_env"]


@pytest.fixture(scope="module")
def recheck_worker(job_env: dict[str, str], ca_bundle: Path) -> Iterator[Worker]:
    """One worker for probes, bookkeeping and deliveries, trusting the receiver's test CA on loopback."""
    env = job_env | {"REQUESTS_CA_BUNDLE": str(ca_bundle), "WEBHOOK_ALLOW_LOOPBACK": "true"}
    started = start_worker(env, f"recheck{os.getpid()}")
    yield started
    started.stop()
