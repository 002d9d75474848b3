"""A group whose task fails every time it runs: after ``MAX_CLAIMS`` claims its addresses settle as
addresses that cannot be validated (spec 4.2: still answered, invalid, score 0, a failed check whose reason
says the check could not be made) and the job finishes, instead of the sweeper handing the group out
forever.

The failure is real: the job's stored options lack keys the worker needs (as a row written by another
version would), so every lane round that claims the group raises inside the worker process.
"""

from __future__ import annotations

from sqlalchemy import select

from models.accounts import Account
from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.jobs.options import JobOptions
from services.probing.rounds.probe import MAX_CLAIMS
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


def test_an_address_given_up_on_is_checked_afresh_by_a_later_request_with_max_age(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    # Options as a live /validate of this account stores them, but with a maxAge no worker can read: the
    # recent-verdict lookup of the later request would match this job's verdicts.
    with transaction() as session:
        account = session.get_one(Account, owner.account_id)
        options = JobOptions.for_account(account, quick_mode=False, skip_catch_all=False).to_json()
    public_id, _ = running_batch(owner, ["carol@mailbox.test"], {**options, "maxAge": "poisoned"})
    [given_up] = wait_for(live_api, owner, public_id, timeout=120)["results"]
    assert (given_up["score"], given_up["metadata"]["cached"]) == (0, False)
    assert "verdict" not in given_up["metadata"]  # the stored mark is the service's own

    body = {"email": "carol@mailbox.test", "options": {"quickMode": False, "maxAge": 3600}}
    again = live_api.call("post", "/validate", owner, json=body)

    assert again.status_code == 200, again.text
    answer = again.json()
    assert answer["metadata"]["cached"] is False
    assert answer["metadata"]["checkedAt"] is not None
    assert answer["checks"]["smtp"]["metadata"]["verdict"] == "deliverable"  # a real check this time
    assert (answer["isValid"], answer["severity"]) == (True, "valid")


def _poisoned_batch(owner: Persona) -> tuple[str, int]:
    """A planned, running batch of one pending group whose options the worker cannot read."""
    return running_batch(owner, EMAILS, {"quickMode": False})
