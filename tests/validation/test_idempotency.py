"""Idempotency-Key on POST /validate/batch and POST /bulk/jobs: a client retrying a request it lost the
answer to gets the same job back and is charged once; the same key on a different request is refused."""

from __future__ import annotations

from datetime import timedelta

import requests
from sqlalchemy import select, update

from models.jobs import ValidationJob
from models.session import transaction
from models.usage import UsagePeriod
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker

QUICK = {"quickMode": True}
EMAILS = ["alice@mailbox.test", "bob@mailbox.test", "zed@mailbox.test"]


def batch(live_api: Api, persona: Persona, key: str, emails: list[str] = EMAILS) -> requests.Response:
    return live_api.call(
        "post",
        "/validate/batch",
        persona,
        json={"emails": emails, "options": QUICK},
        headers={"Idempotency-Key": key},
    )


def used(persona: Persona) -> int:
    with transaction() as session:
        value = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == persona.account_id))
    return value or 0


def test_a_retried_batch_gets_the_same_job_and_is_charged_once(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    first = batch(live_api, owner, "order-1234")
    again = batch(live_api, owner, "order-1234")

    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["batchId"] == first.json()["batchId"]
    assert again.json()["results"] == first.json()["results"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert used(owner) == len(EMAILS)


def test_the_same_key_with_another_body_is_refused(live_api: Api, worker: Worker, owner: Persona) -> None:
    first = batch(live_api, owner, "order-77")
    other = batch(live_api, owner, "order-77", ["carol@mailbox.test"])

    assert other.status_code == 422
    error = other.json()
    assert error["field"] == "Idempotency-Key"
    assert first.json()["batchId"] in error["message"]
    assert used(owner) == len(EMAILS)


def test_keys_belong_to_one_account(live_api: Api, worker: Worker, owner: Persona, outsider: Persona) -> None:
    mine = batch(live_api, owner, "shared-key").json()["batchId"]
    theirs = batch(live_api, outsider, "shared-key")

    assert theirs.status_code == 200
    assert theirs.json()["batchId"] != mine
    assert "Idempotent-Replayed" not in theirs.headers


def test_a_key_older_than_a_day_starts_a_new_job(live_api: Api, worker: Worker, owner: Persona) -> None:
    first = batch(live_api, owner, "daily-run").json()["batchId"]
    with transaction() as session:
        session.execute(
            update(ValidationJob)
            .where(ValidationJob.public_id == first)
            .values(created_at=ValidationJob.created_at - timedelta(hours=25))
        )

    later = batch(live_api, owner, "daily-run", ["carol@mailbox.test"])

    assert later.status_code == 200
    assert later.json()["batchId"] != first
    assert used(owner) == len(EMAILS) + 1


def test_a_malformed_key_is_a_400_naming_the_header(live_api: Api, owner: Persona) -> None:
    for key in ("", "x" * 256, "naïve"):
        response = batch(live_api, owner, key)
        assert response.status_code == 400, key
        assert response.json()["field"] == "Idempotency-Key"
    assert used(owner) == 0


def test_a_retried_upload_gets_the_same_list_and_is_charged_once(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    def upload(rows: list[str]) -> requests.Response:
        return live_api.call(
            "post",
            "/bulk/jobs",
            owner,
            data=("email\n" + "\n".join(rows) + "\n").encode(),
            headers={"Content-Type": "text/csv", "Idempotency-Key": "list-9"},
            params={"quickMode": "true"},
        )

    first, again, other = upload(EMAILS), upload(EMAILS), upload([*EMAILS, "carol@mailbox.test"])

    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert other.status_code == 422
    assert used(owner) == len(EMAILS)
