"""Temporary failures never hold a batch hostage, through the real service: gunicorn,
a Celery worker with beat, the mail lab, and a live HTTPS webhook receiver.

``greylist.test`` answers 450 to a first RCPT (and accepts it once retried), ``busy.test`` answers 421 at
connect, every time. Without ``retryTemporary`` both are answered at once, unknown with their retry time;
with it those answers are interim and the service retries them in the background: the results URL ends
with the settled verdicts, and ``batch.completed`` reaches the receiver once, when the retries end.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from sqlalchemy import delete

from maillab import MailLab
from models.session import transaction
from models.webhooks import WebhookEndpoint
from services.probing.fleet.policy import place
from services.redis_client import get_redis, key
from tests.fixtures.db import Persona
from tests.processes import Gunicorn, start_gunicorn, start_worker
from tests.webhooks.conftest import ca_bundle, receiver, test_ca, webhook_env
from tests.webhooks.receiver import Receiver
from tests.workers.harness import Worker
from verifier.egress import DIRECT

__all__ = ["ca_bundle", "receiver", "test_ca", "webhook_env"]
HEALTHY = ["alice@mailbox.test", "zed@mailbox.test", "bob@tls.test"]
GREYLISTED, BUSY = "carol@greylist.test", "alice@busy.test"
MIXED = [HEALTHY[0], GREYLISTED, HEALTHY[1], BUSY, HEALTHY[2]]


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker, ca_bundle: Path) -> Iterator[Worker]:
    """The module's worker on every queue, able to deliver webhooks to the loopback receiver. Politeness
    backs off from busy.test for a second only (30 s by default): each test here asks it again and must
    see its 421, not the "session limit" of a server we are still leaving alone (tests/probing/
    test_politeness.py covers that)."""
    env = job_env | {"REQUESTS_CA_BUNDLE": str(ca_bundle), "WEBHOOK_ALLOW_LOOPBACK": "true"}
    env |= {"SMTP_BACKOFF_SECONDS": "1", "SMTP_BACKOFF_MAX_SECONDS": "1"}
    started = start_worker(env, f"settle{os.getpid()}")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def service(
    job_env: dict[str, str], worker: Worker, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gunicorn]:
    served = start_gunicorn(job_env, tmp_path_factory.mktemp("settle"))
    yield served
    served.stop()


def call(service: Gunicorn, method: str, path: str, persona: Persona, **kwargs: Any) -> requests.Response:
    return requests.request(method, service.base_url + path, headers=persona.headers, timeout=60, **kwargs)


def smtp_of(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {result["email"]: result["checks"]["smtp"] for result in body["results"]}


def assert_healthy_settled(smtp: dict[str, dict[str, Any]]) -> None:
    assert smtp["alice@mailbox.test"]["passed"] is True
    assert smtp["zed@mailbox.test"]["metadata"]["verdict"] == "undeliverable"
    assert smtp["bob@tls.test"]["passed"] is True


def assert_unknown_with_retry(check: dict[str, Any], reason: str, smtp_response: str) -> None:
    assert (check["passed"], check["status"], check["metadata"]["verdict"]) == (False, "unknown", "unknown")
    assert check["metadata"]["reason"] == reason
    assert check["metadata"]["retryAfter"] == 2  # SMTP_GREYLIST_RETRY_AFTER of the test environment
    assert check["metadata"]["smtpResponse"].startswith(smtp_response)


def forget_backoff(ip: str) -> None:
    """The backoff an earlier test's 421 started at ``ip`` (over the default egress), so it is met anew."""
    where = place(DIRECT.id, ip)
    get_redis().delete(key("smtp-backoff", where), key("smtp-backoff-level", where))


def rcpts_for(lab: MailLab, server: str, local: str) -> int:
    commands = lab.servers[server].commands()
    return len([cmd for cmd in commands if cmd.upper().startswith("RCPT") and f"{local}@" in cmd.lower()])


def test_a_batch_answers_at_once_with_temporary_failures_unknown_and_their_retry_time(
    service: Gunicorn, owner: Persona, lab: MailLab
) -> None:
    response = call(service, "post", "/validate/batch", owner, json={"emails": MIXED})

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["status"], body["retrying"], body["resultsUrl"]) == ("completed", 0, None)
    smtp = smtp_of(body)
    assert_healthy_settled(smtp)
    assert_unknown_with_retry(smtp[GREYLISTED], "greylisted", "450 4.2.0")
    assert_unknown_with_retry(smtp[BUSY], "temporary_failure", "421 4.3.2")
    assert rcpts_for(lab, "greylist", "carol") == 1  # asked once, never again: nothing was held back


def test_a_single_validation_answers_a_421_at_once_with_its_retry_time(
    service: Gunicorn, owner: Persona
) -> None:
    forget_backoff("127.0.0.18")  # met by the batch before: in backoff it is answered "backing_off"
    response = call(service, "post", "/validate", owner, json={"email": BUSY})

    assert response.status_code == 200, response.text
    body = response.json()
    assert_unknown_with_retry(body["checks"]["smtp"], "temporary_failure", "421 4.3.2")
    assert (body["retrying"], body["resultsUrl"]) == (False, None)


def test_a_single_validation_with_retry_temporary_answers_for_now_and_settles_on_its_results_url(
    service: Gunicorn, owner: Persona, lab: MailLab
) -> None:
    request = {"email": GREYLISTED, "options": {"retryTemporary": True}}
    response = call(service, "post", "/validate", owner, json=request)

    assert response.status_code == 200, response.text
    body = response.json()
    assert_unknown_with_retry(body["checks"]["smtp"], "greylisted", "450 4.2.0")
    assert body["retrying"] is True
    settled = poll_results(service, owner, body["resultsUrl"].rsplit("/", 2)[-2])
    assert settled["status"] == "completed"
    assert settled["results"][0]["checks"]["smtp"]["passed"] is True
    assert rcpts_for(lab, "greylist", "carol") == 2


@pytest.fixture
def subscribed(owner: Persona, receiver: Receiver) -> Iterator[Receiver]:
    """The owner's endpoint on the live receiver for batch.completed (set up as an operator would)."""
    with transaction() as session:
        endpoint = WebhookEndpoint(
            account_id=owner.account_id,
            url=receiver.url(),
            events=["batch.completed"],
            secret="whsec_settling",
            status="enabled",
        )
        session.add(endpoint)
        session.flush()
        endpoint_id = endpoint.id
    receiver.secret = "whsec_settling"
    yield receiver
    with transaction() as session:
        session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id))


def poll_results(service: Gunicorn, owner: Persona, batch_id: str, timeout: float = 90) -> dict[str, Any]:
    give_up = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = call(service, "get", f"/batches/{batch_id}/results", owner).json()
        if body["status"] == "completed" or time.monotonic() > give_up:
            return body
        time.sleep(0.5)


def completed_events(receiver: Receiver, batch_id: str) -> list[dict[str, Any]]:
    events = receiver.events()
    return [e for e in events if e["type"] == "batch.completed" and e["data"]["batchId"] == batch_id]


def test_with_retry_temporary_the_interim_answers_settle_later_and_completion_fires_once(
    service: Gunicorn, owner: Persona, lab: MailLab, subscribed: Receiver
) -> None:
    request = {"emails": MIXED, "options": {"retryTemporary": True}}
    response = call(service, "post", "/validate/batch", owner, json=request)

    assert response.status_code == 200, response.text
    first = response.json()
    assert (first["status"], first["retrying"]) == ("running", 2)
    assert first["resultsUrl"].endswith(f"/batches/{first['batchId']}/results")
    assert first["valid"] + first["warning"] + first["invalid"] == len(MIXED)
    interim = smtp_of(first)
    assert_healthy_settled(interim)
    assert_unknown_with_retry(interim[GREYLISTED], "greylisted", "450 4.2.0")
    assert_unknown_with_retry(interim[BUSY], "temporary_failure", "421 4.3.2")
    assert completed_events(subscribed, first["batchId"]) == []  # not while retries are due

    final = poll_results(service, owner, first["batchId"])

    assert (final["status"], final["retrying"]) == ("completed", 0)
    assert final["progress"]["processed"] == len(MIXED)
    settled = smtp_of(final)
    assert_healthy_settled(settled)
    assert settled[GREYLISTED]["passed"] is True  # asked again after the greylisting delay: accepted
    assert rcpts_for(lab, "greylist", "carol") == 2
    assert settled[BUSY]["metadata"]["verdict"] == "unknown"  # still 421 when the retries ran out
    assert lab.servers["busy"].sessions_opened >= 2
    give_up = time.monotonic() + 30
    while not completed_events(subscribed, first["batchId"]) and time.monotonic() < give_up:
        time.sleep(0.2)
    time.sleep(2)  # any second delivery would have been made by now (one worker, one sweep a second)
    [event] = completed_events(subscribed, first["batchId"])
    assert (event["data"]["total"], event["data"]["valid"]) == (len(MIXED), final["progress"]["valid"])
