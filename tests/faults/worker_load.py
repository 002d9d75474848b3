"""A bulk list and concurrent batches of one new account, sent through the API while a fault is made, and
what they must end with: each job finished, one result per address, the fault-free run's verdicts, each
job charged once, one ``batch.completed`` per job.

Batches are sent asynchronously (``Prefer: respond-async``) with an ``Idempotency-Key``, again after a
dropped connection or a 503 (a web process restarting); every read tolerates the same.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests
from sqlalchemy import select

from maillab.world import bench_domain
from models.accounts import Tier
from models.session import transaction
from models.usage import UsageCharge
from tests.faults.checks import FINISHED, assert_one_result_each, verdict
from tests.faults.stack import poll
from tests.fixtures.db import Persona, open_persona
from tests.webhooks.receiver import Receiver

DOMAINS = 60
# The list: 25 addresses at each domain, about one in five unknown; batches: 40 addresses no list holds.
LIST = [
    f"{'nobody' if user % 5 == 4 else 'user'}{user:02d}@{bench_domain(d)}"
    for user in range(15)
    for d in range(DOMAINS)
]
BATCHES = [[f"user{20 + i:02d}@{bench_domain((i * 7 + d) % DOMAINS)}" for d in range(40)] for i in range(6)]
PATIENCE = 120.0  # a job not finished after this long fails the run (the timers would take 300 s)


@dataclass
class Api:
    """The service's API at ``base_url`` for one persona, patient with a web process restarting."""

    base_url: str
    persona: Persona

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        headers = {**self.persona.headers, **kwargs.pop("headers", {})}
        try:
            answer = requests.request(method, self.base_url + path, headers=headers, timeout=30, **kwargs)
        except requests.RequestException:
            return None
        return None if answer.status_code in (502, 503) else answer

    def persist(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        answer = poll(lambda: self.call(method, path, **kwargs), lambda found: found is not None, 60, 0.5)
        assert answer is not None, f"{method} {path} never answered"
        return answer


@dataclass(frozen=True)
class Outcome:
    """A run's jobs (list first) with their addresses and final bodies, how long it took from the upload
    to the last job done, and how long its fault lasted."""

    api: Api
    emails: dict[str, list[str]]
    bodies: dict[str, dict[str, Any]]
    seconds: float
    fault_seconds: float

    def verdicts(self) -> list[dict[str, Any]]:
        """Per job, in order, every address's verdict."""
        return [{row["input"]: verdict(row) for row in self.bodies[job]["results"]} for job in self.emails]


def run(
    base_url: str, receiver: Receiver, fault: Callable[[], object], *, during: str = "probing"
) -> Outcome:
    """A new account's list and batches; ``fault`` made once the list is being ``probing`` (a fifth
    done) or, ``planning``, right after its upload (its plan message taken by the default worker)."""
    api = Api(base_url, open_persona(Tier.BUSINESS))
    hook = api.persist("post", "/webhooks", json={"url": receiver.url(), "events": ["batch.completed"]})
    receiver.secret = hook.json()["secret"]
    started = time.monotonic()
    emails = {_upload(api): LIST}
    if during == "probing":
        emails |= {_send_batch(api, batch): batch for batch in BATCHES}
        list_id = next(iter(emails))
        seen = poll(
            lambda: _status(api, list_id), lambda body: body.get("processed", 0) >= len(LIST) // 5, 60
        )
        assert seen.get("processed", 0) >= len(LIST) // 5, f"the list never got going: {seen}"
    fault_started = time.monotonic()
    fault()
    fault_seconds = time.monotonic() - fault_started
    if during != "probing":
        emails |= {_send_batch(api, batch): batch for batch in BATCHES}
    bodies = _finished(api, list(emails))
    return Outcome(api, emails, bodies, time.monotonic() - started, fault_seconds)


def assert_lost_nothing(outcome: Outcome, reference: Outcome, receiver: Receiver) -> None:
    """Every job completed with one result per address and the fault-free run's verdicts; each charged
    once; one ``batch.completed`` each."""
    for job, emails in outcome.emails.items():
        assert_one_result_each(outcome.bodies[job], job, emails)
    assert outcome.verdicts() == reference.verdicts()
    _assert_charged_once_each(outcome)
    _assert_one_completed_each(receiver, list(outcome.emails))


def _a_fifth_done(status: dict[str, Any]) -> bool:
    return int(status.get("processed", 0)) >= len(LIST) // 5


def _upload(api: Api) -> str:
    headers = {"Content-Type": "text/csv", "Idempotency-Key": uuid.uuid4().hex}
    answer = api.persist("post", "/bulk/jobs", data="\n".join(LIST), headers=headers)
    assert answer.status_code == 202, answer.text
    return str(answer.json()["id"])


def _send_batch(api: Api, emails: list[str]) -> str:
    headers = {"Prefer": "respond-async", "Idempotency-Key": uuid.uuid4().hex}
    answer = api.persist("post", "/validate/batch", json={"emails": emails}, headers=headers)
    assert answer.status_code in (200, 202), answer.text
    return str(answer.json()["batchId"])


def _status(api: Api, list_id: str) -> dict[str, Any]:
    answer = api.call("get", f"/bulk/jobs/{list_id}")
    return answer.json() if answer is not None and answer.status_code == 200 else {}


def _finished(api: Api, jobs: list[str]) -> dict[str, dict[str, Any]]:
    """Each job's results body once all have finished (or as they stood after ``PATIENCE``)."""
    bodies: dict[str, dict[str, Any]] = {}
    give_up = time.monotonic() + PATIENCE
    while time.monotonic() < give_up and len(bodies) < len(jobs):
        for job in [job for job in jobs if job not in bodies]:
            answer = api.call("get", f"/batches/{job}/results?limit=1000")
            if answer is not None and answer.status_code == 200 and answer.json()["status"] in FINISHED:
                bodies[job] = answer.json()
        time.sleep(0.5)
    unfinished = [job for job in jobs if job not in bodies]
    assert not unfinished, f"{len(unfinished)} jobs not finished after {PATIENCE:.0f} s"
    return bodies


def _assert_charged_once_each(outcome: Outcome) -> None:
    """``GET /api/usage`` counts every address once, from one charge under each job's id."""
    usage = outcome.api.persist("get", "/api/usage")
    assert usage.json()["quota"]["used"] == sum(len(emails) for emails in outcome.emails.values())
    stmt = select(UsageCharge.idempotency_key, UsageCharge.validations)
    with transaction() as session:
        charges = session.execute(stmt.where(UsageCharge.account_id == outcome.api.persona.account_id)).all()
    assert sorted(tuple(charge) for charge in charges) == sorted(
        (job, len(emails)) for job, emails in outcome.emails.items()
    )


def _assert_one_completed_each(receiver: Receiver, jobs: list[str]) -> None:
    def completed() -> list[str]:
        return [e["data"]["batchId"] for e in receiver.events() if e["type"] == "batch.completed"]

    seen = poll(completed, lambda ids: set(jobs) <= set(ids), timeout=45, pause=0.2)
    time.sleep(2.0)  # a duplicate would follow its original within moments
    seen = [job for job in completed() if job in jobs]
    assert sorted(seen) == sorted(jobs), "batch.completed missing or sent twice"
