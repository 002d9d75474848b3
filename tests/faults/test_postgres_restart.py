"""Postgres stops and comes back in the middle of a bulk list, and of a batch a client waits on: each
still completes with one result per address, the quota is charged once and ``batch.completed`` is
delivered once.

Each test runs its own Postgres cluster (the shared one on 5432 is never touched), migrated by the release
step, and its own Redis; gunicorn, a Celery worker and beat run on them. Postgres is stopped while groups
are being claimed, probed and saved (``-m immediate`` is a crash: every connection cut, recovery at the
next start; ``-m fast`` ends every session cleanly), and started again once the processes have felt it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from models import session as db_session
from models.accounts import Tier
from settings import get_settings
from tests.faults.batches import Outage, assert_batch_lost_nothing, in_the_middle, wait_through
from tests.faults.checks import (
    assert_charged_once,
    assert_completed_event_delivered_once,
    assert_one_result_each,
    results_of,
)
from tests.faults.stack import OwnPostgres, Stack, migrate, poll, running_stack
from tests.fixtures.db import Persona, open_persona
from tests.limits.test_redis_restart import OwnRedis
from tests.webhooks.receiver import Receiver

# 150 mailboxes over ten lab domains (30 groups of 5, two at a time), one unknown mailbox, one repeated
# line and one line that fails syntax (settled while planning, before any group runs).
EMAILS = [f"user{user:02d}@bench-{domain:03d}.test" for user in range(15) for domain in range(10)]
EMAILS += ["nobody@bench-004.test", "User07@bench-003.test", "not-an-address"]


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


def test_a_bulk_list_loses_nothing_when_postgres_crashesin_the_middle(
    own_postgres: OwnPostgres, stack: Stack, receiver: Receiver
) -> None:
    owner = open_persona(Tier.BUSINESS)
    stack.subscribe(owner, receiver)
    csv_list = {"Content-Type": "text/csv"}
    upload = stack.call("post", "/bulk/jobs", owner, data="\n".join(EMAILS), headers=csv_list)
    assert upload.status_code == 202, upload.text
    public_id = upload.json()["id"]

    progress = poll(lambda: _progress(stack, owner, public_id), in_the_middle, timeout=30, pause=0.05)
    assert in_the_middle(progress), f"the fault must land mid-job: {progress}"
    stack.mark()
    own_postgres.stop("immediate")
    during = stack.call("get", f"/bulk/jobs/{public_id}", owner)
    page_during = stack.call("get", "/dashboard/reset-password/an-emailed-token")
    felt = poll(stack.worker_logs, lambda logs: "OperationalError" in logs, timeout=20)
    own_postgres.start()

    assert "OperationalError" in felt, "the worker never met the outage"
    assert during.status_code == 503, during.text  # a client may retry; it is not a bug of the request
    assert during.headers["Retry-After"] == "10"
    assert page_during.status_code == 503, page_during.text  # a page for people says so too, never a 500
    assert "briefly unavailable" in page_during.text
    body = results_of(stack, owner, public_id, timeout=60)
    assert_one_result_each(body, public_id, EMAILS)
    distinct = len(EMAILS) - 1  # User07@bench-003.test is user07@bench-003.test again: one validation
    assert_charged_once(stack, owner, public_id, distinct)
    assert_completed_event_delivered_once(receiver, owner, public_id)


def _progress(stack: Stack, persona: Persona, public_id: str) -> dict[str, Any]:
    response = stack.call("get", f"/bulk/jobs/{public_id}", persona)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_waited_batch_loses_nothing_when_postgres_restarts_in_the_middle(
    own_postgres: OwnPostgres, stack: Stack, receiver: Receiver
) -> None:
    owner = open_persona(Tier.BUSINESS)
    stack.subscribe(owner, receiver)
    restart = Outage(
        stop=lambda: own_postgres.stop("fast"),
        start=own_postgres.start,
        worker_sign="OperationalError",
        waiter_sign="Postgres unreachable; still waiting",
    )
    answer = wait_through(stack, owner, restart)
    assert_batch_lost_nothing(stack, owner, receiver, answer)
