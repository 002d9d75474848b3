"""The fault benchmark's load, and what it reads afterwards: a bulk list, concurrent waiting batches, and for
every job its items, counters, charges and ``batch.completed`` events.

Clients behave as careful ones do: every batch carries an ``Idempotency-Key`` and is sent again with it
after a dropped connection or a 503 (``Retry-After``), so a retry never pays twice; a batch answered 202 is
polled at its results URL.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import requests

from bench.fault_stack import Service
from maillab.world import bench_domain

FINISHED = ("completed", "failed", "cancelled")
PATIENCE = 900.0  # a job not finished after this long counts as lost


def the_list(count: int, domains: int) -> list[str]:
    """``count`` distinct addresses (at most 25 per domain) over ``domains`` lab domains, in a fixed shuffled
    order as lists come, about 80% real mailboxes (user00-19 exist, nobody00-04 do not)."""
    locals_ = [f"user{j:02d}" for j in range(20)] + [f"nobody{j:02d}" for j in range(5)]
    every = [f"{local}@{bench_domain(i)}" for local in locals_ for i in range(domains)]
    if count > len(every):
        raise ValueError(f"{count} addresses need at least {count // len(locals_) + 1} domains")
    random.Random(28).shuffle(every)
    return every[:count]


def a_batch(index: int, size: int, domains: int) -> list[str]:
    """Batch ``index``: ``size`` addresses no list holds (user20-49 exist, ghost does not), one in twenty
    unknown."""
    return [
        f"ghost{index:02d}@{bench_domain(d % domains)}"
        if d % 20 == 19
        else f"user{20 + index % 30:02d}@{bench_domain(d % domains)}"
        for d in range(size)
    ]


def call(service: Service, method: str, path: str, **kwargs: Any) -> requests.Response:
    headers = {"X-API-Key": service.key, **kwargs.pop("headers", {})}
    return requests.request(method, service.base_url + path, headers=headers, timeout=120, **kwargs)


def upload(service: Service, emails: list[str]) -> str:
    """The list sent as one CSV (``POST /bulk/jobs``), again after a dropped connection; its id."""
    body = "\n".join(["email", *emails]).encode()
    key = uuid.uuid4().hex
    answer = _persist(lambda: call(service, "post", "/bulk/jobs", data=body, headers=_csv(key)))
    if answer.status_code != 202:
        raise RuntimeError(f"list refused: {answer.status_code} {answer.text}")
    return str(answer.json()["id"])


def _csv(key: str) -> dict[str, str]:
    return {"Content-Type": "text/csv", "Idempotency-Key": key}


def progress(service: Service, list_id: str) -> dict[str, Any] | None:
    """The list's status and counts, or None while the service cannot say (a store down, a web worker
    gone)."""
    try:
        answer = call(service, "get", f"/bulk/jobs/{list_id}")
    except requests.RequestException:
        return None
    return answer.json() if answer.status_code == 200 else None


def wait_finished(service: Service, list_id: str, give_up: float) -> float | None:
    """``time.monotonic()`` when the list was seen finished (polled every 0.2 s), or None."""
    while time.monotonic() < give_up:
        seen = progress(service, list_id)
        if seen is not None and seen["status"] in FINISHED:
            return time.monotonic()
        time.sleep(0.2)
    return None


@dataclass
class BatchClient:
    """One client's batch, sent from a thread and followed to its end."""

    emails: list[str]
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    answers: list[int] = field(default_factory=list)  # every status the POST was answered with
    batch_id: str | None = None
    finished_at: float | None = None
    thread: threading.Thread | None = None

    def start(self, service: Service) -> None:
        self.thread = threading.Thread(target=self._run, args=(service,), daemon=True)
        self.thread.start()

    def _run(self, service: Service) -> None:
        headers = {"Idempotency-Key": self.key}
        answer = _persist(
            lambda: call(service, "post", "/validate/batch", json={"emails": self.emails}, headers=headers)
        )
        self.answers.append(answer.status_code)
        if answer.status_code not in (200, 202):
            return
        self.batch_id = answer.json()["batchId"]
        if answer.status_code == 200 and answer.json().get("status", "completed") == "completed":
            self.finished_at = time.monotonic()
            return
        self._follow(service)

    def _follow(self, service: Service) -> None:
        give_up = time.monotonic() + PATIENCE
        while time.monotonic() < give_up:
            try:
                answer = call(service, "get", f"/batches/{self.batch_id}/results?limit=1")
            except requests.RequestException:
                answer = None
            if answer is not None and answer.status_code == 200 and answer.json()["status"] in FINISHED:
                self.finished_at = time.monotonic()
                return
            time.sleep(0.5)

    def join(self, timeout: float) -> None:
        if self.thread is not None:
            self.thread.join(timeout)


def _persist(send: Any, attempts: int = 60) -> requests.Response:
    """``send()`` again after a dropped connection or a 503, as a careful client does (the caller's
    ``Idempotency-Key`` makes it the same request); the first other answer."""
    for _ in range(attempts):
        try:
            answer: requests.Response = send()
        except requests.ConnectionError:
            time.sleep(1.0)
            continue
        if answer.status_code != 503:
            return answer
        time.sleep(min(float(answer.headers.get("Retry-After", "1")), 5.0))
    raise RuntimeError("no answer but 503s and dropped connections")


@dataclass(frozen=True)
class Books:
    """What Postgres and the receiver hold once every job has finished."""

    jobs: int
    unfinished: int
    lost: int  # items of finished jobs without a result
    doubled: int  # results counted more than once in a job's counters
    charges_exact: bool  # one charge per job, of its distinct addresses, and nothing else
    events: Counter[int]  # jobs by the number of batch.completed events received for them


def books(service: Service) -> Books:
    """Every job's items and counters, the account's charges, the events received."""
    rows = service.sql(
        "SELECT j.public_id, j.status, j.total, j.processed, j.valid + j.warning + j.invalid, "
        "count(i.*) FILTER (WHERE i.state = 'done'), count(DISTINCT i.key) FILTER (WHERE i.key IS NOT NULL) "
        "FROM validation_jobs j JOIN job_items i ON i.job_id = j.id GROUP BY j.id"
    )
    charges = Counter(
        dict(service.sql("SELECT idempotency_key, sum(validations) FROM usage_charges GROUP BY 1"))
    )
    charge_rows = service.sql("SELECT count(*), count(DISTINCT idempotency_key) FROM usage_charges")[0]
    received = Counter(
        event["data"]["batchId"] for event in service.receiver.events() if event["type"] == "batch.completed"
    )
    return Books(
        jobs=len(rows),
        unfinished=sum(1 for row in rows if row[1] != "completed"),
        lost=sum(row[2] - row[5] for row in rows),
        doubled=sum(max(row[3] - row[5], row[4] - row[3], 0) for row in rows),
        charges_exact=charge_rows[0] == charge_rows[1] == len(rows)
        and all(charges[row[0]] == row[6] for row in rows),
        events=Counter(received[row[0]] for row in rows),
    )


def verdicts(service: Service, list_id: str) -> dict[int, str]:
    """The list's rows by position: severity, or ``unknown`` when the mailbox could not be checked."""
    rows = service.sql(
        "SELECT i.position, i.severity, i.result -> 'checks' -> 'smtp' ->> 'status', "
        "i.result -> 'checks' -> 'domain' ->> 'status' FROM job_items i "
        "JOIN validation_jobs j ON j.id = i.job_id WHERE j.public_id = %s",
        list_id,
    )
    return {row[0]: "unknown" if "unknown" in (row[2], row[3]) else str(row[1]) for row in rows}
