"""Two planners on one list (the sweeper re-sends the plan of a list still planning after
``JOB_REQUEUE_SECONDS``): every row still gets its group and the list still finishes.

The first planner is this test holding a chunk of rows mid-parse (``plan.parse_rows`` in an open
transaction, exactly what ``parse_chunk`` does); the second is ``plan.plan`` run meanwhile, as the re-sent
message would. Groups go to the module's real worker, which runs them to the end.
"""

from __future__ import annotations

from models.session import transaction
from services.probing.jobs import plan
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for
from tests.workers.rows import queued_list

DOMAINS = ("mailbox.test", "tls.test", "greylist.test")
EMAILS = [f"user{i}@{DOMAINS[i % len(DOMAINS)]}" for i in range(300)]
HELD = 100  # rows the first planner is parsing when the second one runs


def test_a_second_planner_running_while_the_first_holds_rows_leaves_no_row_without_a_group(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    public_id, job_id = _queued_list(owner)

    with transaction() as first:
        assert plan.parse_rows(first, job_id, None, HELD) == HELD
        plan.plan(job_id, None)  # the re-sent message: parses the other rows, finds these locked
    plan.plan(job_id, None)  # the first planner carries on after committing its chunk

    finished = wait_for(live_api, owner, public_id)
    assert finished["status"] == "completed", "rows were left without a group: the list never finishes"
    assert [result["email"] for result in finished["results"]] == EMAILS


def _queued_list(owner: Persona) -> tuple[str, int]:
    options = {"quickMode": True, "skipCatchAll": False, "features": ["syntax", "domain"]}
    return queued_list(owner, EMAILS, options)
