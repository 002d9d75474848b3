"""POST /validate/batch and its results URL: what a client sees, and what lands in Postgres."""

from __future__ import annotations

from sqlalchemy import select

from maillab import MailLab
from models.jobs import JobItem, ValidationJob
from models.session import transaction
from models.usage import UsagePeriod
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for

MIXED = [
    "alice@mailbox.test",
    "zed@mailbox.test",
    "Alice@mailbox.test",  # the same mailbox as the first: probed once, answered twice
    "bob@catchall.test",
    "carol@full.test",
    "not an address",
    "dave@nullmx.test",
    "erin@mailbox.test",
]


def test_a_batch_answers_every_address_in_order_when_it_finishes_in_time(
    live_api: Api, worker: Worker, owner: Persona, lab: MailLab
) -> None:
    response = live_api.call("post", "/validate/batch", owner, json={"emails": MIXED})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["batchId"].startswith("bat_")
    assert body["total"] == len(MIXED)
    assert body["valid"] + body["warning"] + body["invalid"] == len(MIXED)
    assert [result["index"] for result in body["results"]] == list(range(len(MIXED)))
    assert [result["email"] for result in body["results"]] == [
        "alice@mailbox.test",
        "zed@mailbox.test",
        "alice@mailbox.test",  # in lowercase (spec 2.1): a client joins on index or input
        "bob@catchall.test",
        "carol@full.test",
        "not an address",
        "dave@nullmx.test",
        "erin@mailbox.test",
    ]
    by_email = {result["email"]: result for result in body["results"]}
    assert by_email["alice@mailbox.test"]["checks"]["smtp"]["passed"] is True
    assert by_email["zed@mailbox.test"]["severity"] == "invalid"
    assert by_email["bob@catchall.test"]["checks"]["catchAll"]["metadata"]["isCatchAll"] is True
    unparsable = by_email["not an address"]
    assert (unparsable["isValid"], unparsable["score"], unparsable["severity"]) == (False, 0, "invalid")
    assert unparsable["checks"]["syntax"]["status"] == "fail"
    assert unparsable["checks"]["syntax"]["reason"]


def test_duplicates_are_probed_once(live_api: Api, worker: Worker, owner: Persona, lab: MailLab) -> None:
    emails = ["alice@mailbox.test", "ALICE@mailbox.test", "alice@mailbox.test", "bob@mailbox.test"]

    body = live_api.call("post", "/validate/batch", owner, json={"emails": emails}).json()

    assert [result["input"] for result in body["results"]] == emails
    assert [result["email"] for result in body["results"]] == [email.lower() for email in emails]
    assert [result["duplicateOf"] for result in body["results"]] == [None, 0, 0, None]
    own = ("index", "input", "email", "duplicateOf")
    verdicts = [{k: v for k, v in result.items() if k not in own} for result in body["results"][:3]]
    assert verdicts[0] == verdicts[1] == verdicts[2]
    rcpts = [cmd.lower() for cmd in lab.servers["mailbox"].commands() if cmd.upper().startswith("RCPT")]
    assert sum(1 for cmd in rcpts if "<alice@mailbox.test>" in cmd) == 1
    assert sum(1 for cmd in rcpts if "<bob@mailbox.test>" in cmd) == 1


def test_each_distinct_address_counts_one_validation_against_the_quota(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    live_api.call("post", "/validate/batch", owner, json={"emails": MIXED, "options": {"quickMode": True}})

    with transaction() as session:
        used = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == owner.account_id))
    assert used == len(MIXED) - 1  # Alice@ is alice@: one address, charged once


def test_prefer_respond_async_answers_202_with_a_results_url(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    response = live_api.call(
        "post", "/validate/batch", owner, json={"emails": MIXED}, headers={"Prefer": "respond-async"}
    )

    assert response.status_code == 202
    accepted = response.json()
    assert accepted["status"] in ("queued", "running", "completed")
    assert accepted["resultsUrl"].endswith(f"/batches/{accepted['batchId']}/results")
    assert response.headers["Location"] == accepted["resultsUrl"]
    done = wait_for(live_api, owner, accepted["batchId"])
    assert done["status"] == "completed"
    assert done["progress"]["processed"] == done["progress"]["total"] == len(MIXED)
    assert len(done["results"]) == len(MIXED)


def test_results_are_paginated_in_submission_order(live_api: Api, worker: Worker, owner: Persona) -> None:
    emails = [f"user{i:02d}@bench-000.test" for i in range(25)]
    batch_id = live_api.call("post", "/validate/batch", owner, json={"emails": emails}).json()["batchId"]

    first = live_api.call("get", f"/batches/{batch_id}/results?limit=10", owner).json()
    second = live_api.call(
        "get", f"/batches/{batch_id}/results?limit=10&startingAfter={first['nextStartingAfter']}", owner
    ).json()
    last = live_api.call(
        "get", f"/batches/{batch_id}/results?limit=10&startingAfter={second['nextStartingAfter']}", owner
    ).json()

    assert [page["hasMore"] for page in (first, second, last)] == [True, True, False]
    seen = [r["email"] for page in (first, second, last) for r in page["results"]]
    assert seen == emails


def test_results_are_saved_in_postgres(live_api: Api, worker: Worker, owner: Persona) -> None:
    batch_id = live_api.call("post", "/validate/batch", owner, json={"emails": MIXED}).json()["batchId"]

    with transaction() as session:
        job = session.scalars(select(ValidationJob).where(ValidationJob.public_id == batch_id)).one()
        items = session.scalars(select(JobItem).where(JobItem.job_id == job.id)).all()
    assert job.status == "completed"
    assert sorted(item.position for item in items) == list(range(len(MIXED)))
    assert all(item.state == "done" and item.result is not None for item in items)


def test_a_greylisted_address_is_asked_again_later_within_the_deadline_when_retries_are_asked_for(
    live_api: Api, worker: Worker, owner: Persona, lab: MailLab
) -> None:
    request = {"emails": ["carol@greylist.test"], "options": {"retryTemporary": True}}
    response = live_api.call("post", "/validate/batch", owner, json=request)

    body = wait_for(live_api, owner, response.json()["batchId"])
    smtp = body["results"][0]["checks"]["smtp"]
    assert smtp["passed"] is True, smtp  # the retry, after the greylisting delay, was accepted
    rcpts = [cmd for cmd in lab.servers["greylist"].commands() if cmd.upper().startswith("RCPT")]
    assert len([cmd for cmd in rcpts if "carol@" in cmd.lower()]) == 2
