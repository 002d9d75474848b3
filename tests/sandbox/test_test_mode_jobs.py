"""Test mode end to end: every magic address through single, batch and bulk validation and their results
URLs, with a real worker, over HTTP; no DNS query nor SMTP session, nothing charged, and live and test data
invisible to each other."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from maillab import MailLab
from models.accounts import Tier
from tests.fixtures.db import Persona, open_twins
from tests.limits.helpers import at_instant
from tests.processes import start_worker
from tests.sandbox.test_magic_table import OUTCOMES
from tests.workers.harness import Api, Worker, poll_until_finished, wait_for

MAGIC = sorted(OUTCOMES)
__all__ = ["at_instant"]  # one frozen minute for the rate-limit test


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker, ca_bundle: Path) -> Iterator[Worker]:
    """The module's worker on every queue, able to deliver webhooks to the loopback receiver."""
    env = job_env | {"REQUESTS_CA_BUNDLE": str(ca_bundle), "WEBHOOK_ALLOW_LOOPBACK": "true"}
    started = start_worker(env, f"sandbox{os.getpid()}")
    yield started
    started.stop()


@pytest.fixture
def twins(database_url: str) -> tuple[Persona, Persona]:
    """One account's live admin key and its test-mode admin key."""
    return open_twins()


def fresh_domain() -> str:
    """A name nobody asked DNS about yet in this run (no cached answer could hide a lookup)."""
    return f"sandbox-{secrets.token_hex(4)}.test"


def assert_outcome(result: dict[str, Any], local: str) -> None:
    is_valid, severity, check, key, value = OUTCOMES[local]
    assert (result["isValid"], result["severity"]) == (is_valid, severity), local
    assert result["checks"][check]["metadata"][key] == value, local


def test_every_magic_address_answers_post_validate_in_test_mode_without_dns_or_smtp(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona], lab: MailLab
) -> None:
    _, test = twins
    domain = fresh_domain()

    bodies = {
        local: live_api.call("post", "/validate", test, json={"email": f"{local}@{domain}"})
        for local in MAGIC
    }

    for local, response in bodies.items():
        assert response.status_code == 200, response.text
        assert response.json()["livemode"] is False
        assert_outcome(response.json(), local)
    assert [name for name in lab.dns_questions if domain in name] == []


def test_a_live_key_validating_the_same_way_does_ask_dns_and_the_mail_server(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona], lab: MailLab
) -> None:
    live, _ = twins

    response = live_api.call("post", "/validate", live, json={"email": "deliverable@mailbox.test"})

    assert (response.status_code, response.json()["livemode"]) == (200, True)
    assert lab.servers["mailbox"].sessions_opened >= 1  # the control: the live path reaches the lab


def test_a_batch_of_magic_addresses_and_its_results_url_are_test_mode_and_the_live_key_sees_neither(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona], lab: MailLab
) -> None:
    live, test = twins
    emails = [f"{local}@mailbox.test" for local in MAGIC] + ["not an address"]

    response = live_api.call("post", "/validate/batch", test, json={"emails": emails})

    assert response.status_code == 200, response.text
    batch = response.json()
    assert (batch["status"], batch["livemode"]) == ("completed", False)
    for local, result in zip(MAGIC, batch["results"], strict=False):
        assert_outcome(result, local)
    assert batch["results"][-1]["checks"]["syntax"]["status"] == "fail"
    results = wait_for(live_api, test, batch["batchId"])
    assert (results["livemode"], len(results["results"])) == (False, len(emails))
    assert live_api.call("get", f"/batches/{batch['batchId']}/results", live).status_code == 404
    _, outsider_test = open_twins()  # another account's test key
    assert live_api.call("get", f"/batches/{batch['batchId']}/results", outsider_test).status_code == 404
    assert lab.servers["mailbox"].sessions_opened == 0


def test_a_test_key_cannot_see_a_live_batch(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona]
) -> None:
    live, test = twins
    batch = live_api.call("post", "/validate/batch", live, json={"emails": ["x"]}).json()

    assert batch["livemode"] is True
    assert live_api.call("get", f"/batches/{batch['batchId']}/results", test).status_code == 404
    assert live_api.call("get", f"/batches/{batch['batchId']}/results", live).status_code == 200


def test_a_bulk_list_of_magic_addresses_downloads_their_outcomes_and_is_not_charged(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona], lab: MailLab
) -> None:
    live, test = twins
    rows = [f"{local}+{n}@mailbox.test" for n in range(3) for local in MAGIC]
    text = "email\n" + "\n".join(rows) + "\n"

    created = live_api.call(
        "post", "/bulk/jobs", test, data=text.encode(), headers={"Content-Type": "text/csv"}
    )

    assert created.status_code == 202, created.text
    job = created.json()
    assert job["livemode"] is False
    finished = poll_until_finished(live_api, test, f"/bulk/jobs/{job['id']}", 90)
    assert (finished["status"], finished["processed"]) == ("completed", len(rows))
    download = live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=json", test)
    assert download.status_code == 200
    for row in download.json():
        local = row["email"].partition("+")[0]
        # a list retries temporary failures by default: greylisted settled deliverable on its retry
        assert row["severity"] == ("valid" if local == "greylisted" else OUTCOMES[local][1]), row
    assert live_api.call("get", f"/bulk/jobs/{job['id']}", live).status_code == 404
    assert live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=csv", live).status_code == 404
    usage = live_api.call("get", "/api/usage", live).json()
    assert usage["quota"]["used"] == 0, usage
    assert lab.servers["mailbox"].sessions_opened == 0


def test_a_test_mode_dry_run_costs_nothing(live_api: Api, twins: tuple[Persona, Persona]) -> None:
    live, test = twins
    text = "email\ndeliverable@example.net\nfull@example.net\n"

    def cost(persona: Persona) -> int:
        response = live_api.call(
            "post",
            "/bulk/jobs",
            persona,
            data=text.encode(),
            headers={"Content-Type": "text/csv"},
            params={"dryRun": "true"},
        )
        assert response.status_code == 200, response.text
        validations: int = response.json()["cost"]["validations"]
        return validations

    assert (cost(test), cost(live)) == (0, 2)


def test_greylisted_settles_deliverable_later_with_retry_temporary(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona]
) -> None:
    _, test = twins
    emails = ["greylisted@example.net", "deliverable@example.net"]
    request = {"emails": emails, "options": {"retryTemporary": True}}

    first = live_api.call("post", "/validate/batch", test, json=request).json()

    assert (first["status"], first["retrying"]) == ("running", 1)
    final = wait_for(live_api, test, first["batchId"], timeout=90)
    assert final["status"] == "completed"
    assert [result["severity"] for result in final["results"]] == ["valid", "valid"]


def test_the_test_mode_rate_limit_answers_429_and_leaves_the_live_one_alone(
    live_api: Api, worker: Worker, database_url: str, at_instant: datetime
) -> None:
    live, test = open_twins(Tier.GROWTH)  # 10 requests a minute
    email = {"email": "deliverable@example.net", "options": {"quickMode": True}}
    answers = [live_api.call("post", "/validate", test, json=email) for _ in range(11)]

    assert [response.status_code for response in answers] == [200] * 10 + [429]
    assert answers[-1].headers["X-RateLimit-Remaining"] == "0"
    assert live_api.call("post", "/validate", live, json=email).status_code == 200
    windows = {
        name: live_api.call("get", "/api/usage", persona).json()["rateLimit"]["usedThisMinute"]
        for name, persona in (("test", test), ("live", live))
    }
    assert windows == {"test": 10, "live": 1}


def test_a_sandbox_verdict_is_never_reused_for_a_live_request_nor_a_live_one_in_test_mode(
    live_api: Api, worker: Worker, twins: tuple[Persona, Persona]
) -> None:
    live, test = twins
    email = {"email": "deliverable@mailbox.test", "options": {"quickMode": True, "maxAge": 3600}}

    def cached(persona: Persona) -> tuple[bool, bool]:
        body = live_api.call("post", "/validate", persona, json=email).json()
        return body["livemode"], body["metadata"]["cached"]

    assert [cached(test), cached(test)] == [(False, False), (False, True)]  # test mode reuses its own
    assert [cached(live), cached(live)] == [(True, False), (True, True)]  # live never took the sandbox's
