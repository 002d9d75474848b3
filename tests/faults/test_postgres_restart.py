"""Postgres stops and comes back in the middle of a bulk list, and of a batch a client waits on: each
still completes, within a minute of Postgres' return, with one result per address, the quota is charged
once and ``batch.completed`` is delivered once.

Each test runs its own Postgres cluster (the shared one on 5432 is never touched), migrated by the release
step, and its own Redis; gunicorn, a Celery worker and beat run on them. Postgres is stopped while groups
are being claimed, probed and saved (``-m immediate`` is a crash: every connection cut, recovery at the
next start; ``-m fast`` ends every session cleanly), and started again once the processes have felt it,
or after a twenty-second outage.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from models import session as db_session
from models.accounts import Tier
from settings import get_settings
from tests.faults.batches import Outage, assert_batch_lost_nothing, wait_through
from tests.faults.lists import assert_list_lost_nothing, list_through
from tests.faults.stack import OwnPostgres, Stack, migrate, poll, running_stack
from tests.fixtures.db import Persona, open_persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver

OUTAGE_SECONDS = 20.0


@pytest.fixture(scope="module")
def own_postgres(fault_env: dict[str, str]) -> Iterator[OwnPostgres]:
    """A migrated cluster of this module alone; this process reads and writes it too meanwhile."""
    server = OwnPostgres()
    with pytest.MonkeyPatch.context() as env:
        try:
            server.create()
            migrate(fault_env | {"DATABASE_URL": server.url})
            env.setenv("DATABASE_URL", server.url)
            _forget_database()
            yield server
        finally:
            env.undo()
            _forget_database()
            server.destroy()


def _forget_database() -> None:
    get_settings.cache_clear()
    db_session.reset()


@pytest.fixture(scope="module")
def stack(
    own_postgres: OwnPostgres,
    private_redis: OwnRedis,
    fault_env: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    """One stack for the module's tests (each has its own account); each test starts with Postgres up."""
    env = fault_env | {"DATABASE_URL": own_postgres.url, "REDIS_URL": private_redis.url}
    yield from running_stack(env, tmp_path_factory, "pgfault")


@pytest.fixture(autouse=True)
def postgres_up(own_postgres: OwnPostgres) -> None:
    """An earlier test that failed in its outage may have left Postgres stopped."""
    if not own_postgres.running():
        own_postgres.start()


def test_a_bulk_list_loses_nothing_when_postgres_crashes_in_the_middle(
    own_postgres: OwnPostgres, stack: Stack, receiver: Receiver
) -> None:
    seen: dict[str, requests.Response] = {}

    def meanwhile(owner: Persona, public_id: str) -> None:
        seen["progress"] = stack.call("get", f"/bulk/jobs/{public_id}", owner)
        seen["page"] = stack.call("get", "/dashboard/reset-password/an-emailed-token-" + "x" * 26)
        poll(stack.worker_logs, lambda logs: "OperationalError" in logs, timeout=20)

    fault = list_through(
        stack, receiver, lambda: own_postgres.stop("immediate"), own_postgres.start, meanwhile
    )

    assert "OperationalError" in fault.worker_log, "the worker never met the outage"
    during, page_during = seen["progress"], seen["page"]
    assert during.status_code == 503, during.text  # a client may retry; it is not a bug of the request
    assert during.headers["Retry-After"] == "10"
    assert page_during.status_code == 503, page_during.text  # a page for people says so too, never a 500
    assert "briefly unavailable" in page_during.text
    assert_list_lost_nothing(stack, receiver, fault)


def test_a_bulk_list_finishes_within_a_minute_of_a_twenty_second_postgres_outage(
    own_postgres: OwnPostgres, stack: Stack, receiver: Receiver
) -> None:
    # the outage's length: the worker waits it out with what it holds
    fault = list_through(
        stack,
        receiver,
        lambda: own_postgres.stop("fast"),
        own_postgres.start,
        lambda *_: time.sleep(OUTAGE_SECONDS),
    )

    assert "Postgres unreachable, trying again" in fault.worker_log, "the worker never met the outage"
    assert_list_lost_nothing(stack, receiver, fault)


def test_a_waited_batch_loses_nothing_when_postgres_restarts_in_the_middle(
    own_postgres: OwnPostgres, stack: Stack, receiver: Receiver
) -> None:
    owner = open_persona(Tier.BUSINESS)
    stack.subscribe(owner, receiver)
    restart = Outage(
        stop=lambda: own_postgres.stop("fast"), start=own_postgres.start, worker_sign="OperationalError"
    )
    survived = wait_through(stack, owner, restart)
    assert_batch_lost_nothing(stack, owner, receiver, survived)
