"""Fault tests: the whole service on stores the test owns, one of which it stops and starts mid-job.

Reuses the webhook fixtures (a test CA, a live HTTPS receiver) and the job timings of the worker harness.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from maillab import MailLab
from tests.faults.stack import Stack, running_stack
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.conftest import ca_bundle, receiver, test_ca, webhook_env
from tests.workers.harness import JOB_ENV

__all__ = ["ca_bundle", "receiver", "test_ca", "webhook_env"]

# Small groups, few at a time: a list of a hundred addresses takes many rounds of claim, probe and save,
# so a fault in the middle of the job lands in the middle of that work. The lease and requeue timers are
# at ten minutes and the sweeper runs at its production pace: a job that finishes within a minute of the
# fault's end was recovered by noticing the store come back or the holder die, not by a timer.
FAULT_ENV = {
    "JOB_WINDOW": "2",
    "SMTP_MAX_RCPT_PER_SESSION": "5",
    "BATCH_SYNC_WAIT_SECONDS": "40",
    "WEBHOOK_ALLOW_LOOPBACK": "true",
    "JOB_LEASE_SECONDS": "600",
    "JOB_REQUEUE_SECONDS": "600",
    "JOB_SWEEP_SECONDS": "15",
}


@pytest.fixture(scope="session")
def fault_env(mail_lab: MailLab, ca_bundle: Path) -> dict[str, str]:
    """What the stack's processes run with, before the test names its Postgres and Redis."""
    return dict(os.environ) | JOB_ENV | mail_lab.env() | FAULT_ENV | {"REQUESTS_CA_BUNDLE": str(ca_bundle)}


@pytest.fixture(scope="module")
def stack(
    request: pytest.FixtureRequest,
    database_url: str,
    private_redis: OwnRedis,
    fault_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    """The stack on the run's Postgres and the module's own Redis, with the module's ``STACK_ENV`` (if
    any) on top of ``fault_env``; a module that needs other stores defines its own ``stack``."""
    env = fault_env | getattr(request.module, "STACK_ENV", {})
    env |= {"DATABASE_URL": database_url, "REDIS_URL": private_redis.url}
    yield from running_stack(env, tmp_path_factory, request.module.__name__.rpartition(".")[2])


@pytest.fixture(scope="module")
def private_redis() -> Iterator[OwnRedis]:
    """A ``redis-server`` of this module alone (no persistence, like production's), on a free port."""
    server = OwnRedis()
    server.start()
    yield server
    server.stop()
