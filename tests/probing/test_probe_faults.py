"""The probes worker's side when Redis fails under the session limiter in the middle of a probe: the lane's
round lets its claim go with no verdict saved (pending again, nothing counted, the job still running), and
the next round's claim, with Redis back, saves the fault-free verdicts once.

The group runs in this process against the run's Postgres and the mail lab; Redis "fails" where the
service's ``RedisSessionLimiter`` calls it, with the error redis-py raises when the server is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import select, update

from models.jobs import GroupState, JobGroup, JobItem, ValidationJob
from models.session import transaction
from services.jobs.options import JobOptions
from services.jobs.store import Claim
from services.probing.fleet import fleet_engine, politeness
from services.probing.rounds import lane_runs
from services.probing.rounds.probe import ProbeNotMade
from tests.fixtures.db import Persona
from tests.workers.rows import running_batch
from verifier.engine import FEATURES

EMAILS = ["alice@mailbox.test", "nobody@mailbox.test"]
OPTIONS = JobOptions(features=tuple(sorted(FEATURES))).to_json()


@pytest.fixture
def fresh_engine(job_env: dict[str, str]) -> Iterator[None]:
    """An engine of this test's own: no session kept by an earlier test rides past the limiter."""
    fleet_engine.shared_engine.cache_clear()
    yield
    fleet_engine.shared_engine().keeper.close_idle(everything=True)  # type: ignore[union-attr]
    fleet_engine.shared_engine.cache_clear()


def redis_gone(*_args: object, **_kwargs: object) -> Any:
    raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_a_round_whose_limiter_loses_redis_lets_its_claim_go_with_no_verdict_then_judged_once(
    fresh_engine: None, owner: Persona, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, job_id = running_batch(owner, EMAILS, OPTIONS)
    group_id = _queue(job_id)
    monkeypatch.setattr(politeness, "try_open", redis_gone)

    with pytest.raises(ProbeNotMade):
        list(lane_runs.probe_round(_claim(group_id)))

    assert _standing(job_id) == ("running", 0, GroupState.PENDING.value, 1, {"pending"})
    monkeypatch.undo()
    _queue(job_id)
    lane_runs.save_rounds(list(lane_runs.probe_round(_claim(group_id))))
    assert _standing(job_id) == ("completed", 2, GroupState.DONE.value, 2, {"done"})
    assert_fault_free_verdicts(job_id)


def _claim(group_id: int) -> list[Claim]:
    """The group claimed for a round of its own, as a lane's drain claims it (under a token no lane has)."""
    (claims,) = lane_runs.claim_rounds([("a-lane-owner", [group_id])])
    assert [claim.group_id for claim in claims] == [group_id]
    return claims


def assert_fault_free_verdicts(job_id: int) -> None:
    results = _results(job_id)
    alice, nobody = (results[email] for email in EMAILS)
    assert (alice["isValid"], alice["severity"]) == (True, "valid")
    assert (nobody["isValid"], nobody["score"], nobody["severity"]) == (False, 10, "invalid")
    assert "The mailbox does not exist: remove this address." in nobody["recommendations"]


def _queue(job_id: int) -> int:
    """The job's group marked queued, as a refill of its window would (without a lane: this test runs it)."""
    with transaction() as session:
        return session.execute(
            update(JobGroup)
            .where(JobGroup.job_id == job_id)
            .values(state=GroupState.QUEUED.value)
            .returning(JobGroup.id)
        ).scalar_one()


def _standing(job_id: int) -> tuple[str, int, str, int, set[str]]:
    """The job's status and processed count, its group's state and claims, its items' states."""
    with transaction() as session:
        job = session.get_one(ValidationJob, job_id)
        group = session.scalars(select(JobGroup).where(JobGroup.job_id == job_id)).one()
        states = set(session.scalars(select(JobItem.state).where(JobItem.job_id == job_id)))
        return job.status, job.processed, group.state, group.attempts, states


def _results(job_id: int) -> dict[str, dict[str, Any]]:
    with transaction() as session:
        rows = session.execute(select(JobItem.email, JobItem.result).where(JobItem.job_id == job_id))
        return {str(email): dict(result or {}) for email, result in rows}
