"""The refusal budget of a session through the whole service: a list of unknown mailboxes at a server with
low error limits is answered address by address, never cut off by the server's "too many errors"."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from maillab import MailLab
from tests.fixtures.db import open_persona
from tests.processes import start_worker
from tests.workers.harness import Api, Worker, poll_until_finished

# A session may collect 4 refusals; the lab's "strict" server drops a client at its 6th.
BUDGET_ENV = {"SMTP_SESSION_MAX_REJECTIONS": "4"}


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    started = start_worker(job_env | BUDGET_ENV, f"budget{os.getpid()}")
    yield started
    started.stop()


def test_sessions_stay_under_a_servers_error_limit(live_api: Api, worker: Worker, lab: MailLab) -> None:
    persona = open_persona()
    emails = [f"nobody{i}@strict.test" for i in range(22)] + ["alice@strict.test"]

    body = live_api.call("post", "/validate/batch", persona, json={"emails": emails}).json()

    done = poll_until_finished(live_api, persona, f"/batches/{body['batchId']}/results?limit=100", 60)
    by_email = {result["email"]: result for result in done["results"]}
    assert by_email["alice@strict.test"]["checks"]["smtp"]["passed"] is True
    for i in range(22):  # every unknown mailbox was answered by the server, none cut off by its limit
        smtp = by_email[f"nobody{i}@strict.test"]["checks"]["smtp"]
        assert smtp["passed"] is False, smtp
        assert smtp["metadata"]["reason"] == "mailbox_rejected", smtp
    sessions = lab.servers["strict"].transcripts()
    refused = [sum(c.startswith("RCPT") and "alice" not in c for c in session) for session in sessions]
    assert max(refused) <= 4, refused  # the server would have dropped us at the 6th
