"""The engine's "checker degraded" verdict on distributed jobs: when no MX host of several domains says a
word, the job blames our checker (outbound port 25), not the list; one answering domain clears it."""

from __future__ import annotations

from typing import Any

from maillab import MailLab
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for
from verifier.scoring import DEGRADED

DARK = ["jane@dead.test", "joe@dead2.test", "kim@dead3.test"]


def finished_batch(live_api: Api, persona: Persona, emails: list[str]) -> dict[str, Any]:
    response = live_api.call("post", "/validate/batch", persona, json={"emails": emails})
    body: dict[str, Any] = response.json()
    return body if response.status_code == 200 else wait_for(live_api, persona, body["batchId"])


def test_a_batch_where_no_mx_answers_says_the_checker_is_degraded(
    live_api: Api, worker: Worker, owner: Persona, lab: MailLab
) -> None:
    body = finished_batch(live_api, owner, [*DARK, "not an address"])

    assert body["checkerDegraded"] is True
    dark = body["results"][:3]
    assert all(result["checks"]["smtp"]["metadata"]["checkerDegraded"] is True for result in dark)
    assert all(DEGRADED in result["recommendations"] for result in dark)
    assert all(result["severity"] == "warning" for result in dark)  # not turned into invalids
    assert body["results"][3]["severity"] == "invalid"
    results_url = live_api.call("get", f"/batches/{body['batchId']}/results", owner).json()
    assert results_url["checkerDegraded"] is True
    assert results_url["results"] == body["results"]


def test_one_answering_domain_means_the_dead_ones_are_the_domains_fault(
    live_api: Api, worker: Worker, owner: Persona, lab: MailLab
) -> None:
    body = finished_batch(live_api, owner, [*DARK, "bob@mailbox.test"])

    assert body["checkerDegraded"] is False
    assert all(result["checks"]["smtp"]["metadata"]["checkerDegraded"] is False for result in body["results"])
    assert all(DEGRADED not in result["recommendations"] for result in body["results"])
