"""A suppressed address is answered at once as invalid with ``metadata.reason`` ``suppressed`` and its
evidence, the same in single, batch and bulk calls, and opens no SMTP session: the lab's servers see no
RCPT for it (yahoo.test accepts every RCPT, as Yahoo does for a closed account, so only the bounce knows).
Through real HTTP, a real Celery worker and the mail lab."""

from __future__ import annotations

import json
from typing import Any

import pytest

from maillab import MailLab
from tests.fixtures.db import Persona, open_twins
from tests.workers.harness import Api, Worker, beat, job_env, live_api, poll_until_finished, wait_for, worker

__all__ = ["beat", "job_env", "live_api", "worker"]
CLOSED = "closed.account@yahoo.test"
ALIVE = "alice@mailbox.test"


def same_answer(result: dict[str, Any]) -> str:
    """What must not differ between single, batch and bulk (not the times of the request)."""
    evidence = result["metadata"]["suppression"]
    return json.dumps(
        [
            result["isValid"],
            result["score"],
            result["severity"],
            result["checks"],
            result["recommendations"],
            result["metadata"]["reason"],
            {name: evidence[name] for name in ("email", "kind", "source", "diagnosticCode", "bouncedAt")},
        ],
        sort_keys=True,
    )


def rcpts(lab: MailLab) -> list[str]:
    return [
        command
        for server in lab.servers.values()
        for command in server.commands()
        if command.upper().startswith("RCPT")
    ]


@pytest.fixture
def suppressing(live_api: Api, database_url: str) -> Persona:
    """An account whose list holds CLOSED: a hard bounce uploaded with its diagnostic code."""
    owner, _ = open_twins()
    source = live_api.call(
        "post", "/suppression/sources", owner, json={"kind": "upload", "name": "ESP export"}
    ).json()
    rows = [
        {
            "email": CLOSED,
            "kind": "hard",
            "diagnosticCode": "smtp; 554 delivery error: dd This user doesn't have a yahoo.com account",
            "bouncedAt": "2026-12-01T10:00:00Z",
        }
    ]
    uploaded = live_api.call(
        "post", f"/inbound/{source['id']}", headers={"Authorization": f"Bearer {source['secret']}"}, json=rows
    )
    assert uploaded.json()["recorded"] == {"hard": 1}, uploaded.text
    return owner


def test_single_batch_and_bulk_answer_a_suppressed_address_alike_without_smtp(
    live_api: Api, worker: Worker, suppressing: Persona, lab: MailLab
) -> None:
    quick = live_api.call(
        "post", "/validate", suppressing, json={"email": CLOSED, "options": {"quickMode": True}}
    )
    single = live_api.call("post", "/validate", suppressing, json={"email": CLOSED})
    batch = live_api.call("post", "/validate/batch", suppressing, json={"emails": [CLOSED, ALIVE]})
    upload = live_api.call(
        "post",
        "/bulk/jobs",
        suppressing,
        data=f"email\n{CLOSED}\n{ALIVE}\n",
        headers={"Content-Type": "text/csv"},
    )
    finished = poll_until_finished(live_api, suppressing, f"/bulk/jobs/{upload.json()['id']}", 90)
    bulk = json.loads(
        live_api.call("get", f"/bulk/jobs/{upload.json()['id']}/download?format=json", suppressing).text
    )

    assert (quick.status_code, single.status_code, batch.status_code) == (200, 200, 200), single.text
    assert finished["status"] == "completed"
    answers = [quick.json(), single.json(), batch.json()["results"][0], bulk[0]]
    assert {same_answer(answer) for answer in answers} == {same_answer(quick.json())}
    assert (quick.json()["isValid"], quick.json()["score"], quick.json()["severity"]) == (False, 0, "invalid")
    assert quick.json()["metadata"]["suppression"]["diagnosticCode"].startswith("smtp; 554")
    assert batch.json()["results"][1]["severity"] == "valid"  # the control: the other address was probed
    assert not [command for command in rcpts(lab) if "yahoo.test" in command]
    assert [command for command in rcpts(lab) if ALIVE in command]
    assert lab.servers["yahoo"].sessions_opened == 0


def test_a_batch_of_only_suppressed_addresses_finishes_at_once_and_counts_each_address(
    live_api: Api, worker: Worker, suppressing: Persona, lab: MailLab
) -> None:
    before = live_api.call("get", "/api/usage", suppressing).json()["quota"]["used"]

    batch = live_api.call("post", "/validate/batch", suppressing, json={"emails": [CLOSED, CLOSED.upper()]})

    assert (batch.status_code, batch.json()["status"], batch.json()["invalid"]) == (200, "completed", 2)
    assert (
        live_api.call("get", "/api/usage", suppressing).json()["quota"]["used"] == before + 1
    )  # one distinct
    assert lab.servers["yahoo"].sessions_opened == 0
    assert wait_for(live_api, suppressing, batch.json()["batchId"])["status"] == "completed"


def test_removed_from_the_list_the_address_is_validated_again(
    live_api: Api, worker: Worker, suppressing: Persona, lab: MailLab
) -> None:
    live_api.call("delete", f"/suppression/addresses/{CLOSED}", suppressing)

    answer = live_api.call("post", "/validate", suppressing, json={"email": CLOSED})

    assert "reason" not in answer.json()["metadata"]
    assert lab.servers["yahoo"].sessions_opened >= 1


def test_another_account_and_test_mode_are_not_answered_from_this_list(
    live_api: Api, worker: Worker, suppressing: Persona
) -> None:
    other, other_test = open_twins()
    quick = {"email": CLOSED, "options": {"quickMode": True}}

    for persona in (other, other_test):
        assert "reason" not in live_api.call("post", "/validate", persona, json=quick).json()["metadata"]
