"""``options.timeout`` on POST /validate: the answer comes within it, the checks not finished unknown with
the reason timeout; the validation goes on to its settled result (results URL, ``validation.completed``),
charged once. Over real HTTP, with a worker patient enough for slow.test (1.5 s a reply)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.fixtures.db import Persona
from tests.limits.helpers import events_of, subscribe_to_everything
from tests.processes import running
from tests.workers.harness import PATIENT_SMTP, Api, Worker, poll_until_finished, start_worker

TIMEOUT = 2.0
SLACK = 1.0  # HTTP and the request's own steps around its budget, on a loaded machine


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    """A worker that waits out slow.test's 1.5 s replies (the suite's timings give up on its banner)."""
    patient = job_env | PATIENT_SMTP
    with running(start_worker(patient, f"budget{os.getpid()}")) as started:
        yield started


def timed(live_api: Api, owner: Persona, email: str, timeout: float) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    response = live_api.call(
        "post", "/validate", owner, json={"email": email, "options": {"timeout": timeout}}
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body, elapsed


def test_a_slow_mail_server_is_answered_within_the_timeout_and_settles_afterwards(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    subscribe_to_everything(owner.account_id)

    body, elapsed = timed(live_api, owner, "alice@slow.test", TIMEOUT)

    assert elapsed < TIMEOUT + SLACK
    assert body["timedOut"] is True
    assert body["checks"]["domain"]["passed"] is True  # DNS had answered: only the mail server waits
    for name in ("smtp", "catchAll"):
        assert (body["checks"][name]["status"], body["checks"][name]["reason"]) == ("unknown", "timeout")
    assert body["severity"] != "invalid"
    settled = poll_until_finished(live_api, owner, urlsplit(body["resultsUrl"]).path, 60)
    assert settled["results"][0]["checks"]["smtp"]["passed"] is True
    completed = events_of(owner.account_id, "validation.completed")
    assert [event["checks"]["smtp"] for event in completed] == [True]
    assert live_api.call("get", "/api/usage", owner).json()["quota"]["used"] == 1  # charged once


def test_an_answer_ready_within_the_timeout_is_the_settled_one(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    body, _ = timed(live_api, owner, "bob@mailbox.test", 10)

    assert "timedOut" not in body or body["timedOut"] is False
    assert body["resultsUrl"] is None
    assert body["checks"]["smtp"]["passed"] is True


def test_dns_that_does_not_answer_in_time_leaves_the_domain_unknown_for_timeout(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    body, elapsed = timed(live_api, owner, "alice@timeout.test", 1)

    assert elapsed < 1 + SLACK
    assert (body["checks"]["domain"]["status"], body["checks"]["domain"]["reason"]) == ("unknown", "timeout")
    assert body["timedOut"] is True


@pytest.mark.parametrize("timeout", [0.5, 61, "3", True])
def test_a_timeout_outside_its_bounds_is_refused_naming_it(
    live_api: Api, owner: Persona, timeout: object
) -> None:
    response = live_api.call(
        "post", "/validate", owner, json={"email": "bob@mailbox.test", "options": {"timeout": timeout}}
    )

    assert response.status_code == 400
    assert response.json()["field"] == "options.timeout"
