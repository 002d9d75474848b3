"""A group whose task fails every time it runs: after ``MAX_CLAIMS`` claims its addresses settle as
addresses that cannot be validated (spec 4.2: still answered, invalid, score 0, a failed check whose reason
says the check could not be made) and the job finishes, instead of the sweeper handing the group out
forever.

The failure is real: the job's stored options lack keys the worker needs (as a row written by another
version would), so every lane round that claims the group raises inside the worker process.
"""

from __future__ import annotations

from sqlalchemy import select

from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.probing.probe import MAX_CLAIMS
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for, worker
from tests.workers.rows import running_batch

__all__ = ["worker"]
EMAILS = ["alice@mailbox.test", "bob@mailbox.test"]


def test_a_group_that_keeps_failing_settles_as_not_validated_because_the_check_could_not_be_made(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    public_id, job_id = _poisoned_batch(owner)

    body = wait_for(live_api, owner, public_id, timeout=120)

    assert body["status"] == "completed"
    assert [result["email"] for result in body["results"]] == EMAILS
    for result in body["results"]:
        assert (result["isValid"], result["score"], result["severity"]) == (False, 0, "invalid")
        [check] = result["checks"].values()
        assert (check["passed"], check["status"]) == (False, "fail")
        assert check["reason"].startswith("The check could not be made")
        assert result["recommendations"] == [check["reason"]]
    with transaction() as session:
        group = session.scalars(select(JobGroup).where(JobGroup.job_id == job_id)).one()
    assert group.state == GroupState.DONE.value
    assert group.attempts == MAX_CLAIMS + 1
    assert "KeyError" in worker.log.read_text(errors="replace")  # it did run, and fail, in the worker


def _poisoned_batch(owner: Persona) -> tuple[str, int]:
    """A planned, running batch of one pending group whose options the worker cannot read."""
    return running_batch(owner, EMAILS, {"quickMode": False})
