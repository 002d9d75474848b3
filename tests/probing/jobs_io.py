"""Jobs through the live API, and what the database holds of them: the probing tests' shared steps."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from models.jobs import JobItem, ValidationJob
from models.session import transaction
from tests.fixtures.db import Persona
from tests.workers.harness import Api


def submit_batch(api: Api, persona: Persona, emails: list[str]) -> dict[str, Any]:
    response = api.call("post", "/validate/batch", persona, json={"emails": emails})
    assert response.status_code in (200, 202), response.text
    body: dict[str, Any] = response.json()
    return body


def submit_list(api: Api, persona: Persona, emails: list[str]) -> str:
    text = "email\n" + "\n".join(emails) + "\n"
    headers = {"Content-Type": "text/csv"}
    response = api.call("post", "/bulk/jobs", persona, data=text.encode(), headers=headers)
    assert response.status_code == 202, response.text
    job_id: str = response.json()["id"]
    return job_id


def rows_per_job(public_ids: list[str]) -> dict[str, tuple[int, int, int, int]]:
    """public id -> (total, processed, items done, items with a result)."""
    with transaction() as session:
        rows = session.execute(
            select(
                ValidationJob.public_id,
                ValidationJob.total,
                ValidationJob.processed,
                func.count().filter(JobItem.state == "done"),
                func.count(JobItem.result),
            )
            .join(JobItem, JobItem.job_id == ValidationJob.id)
            .where(ValidationJob.public_id.in_(public_ids))
            .group_by(ValidationJob.public_id, ValidationJob.total, ValidationJob.processed)
        ).all()
    return {row[0]: tuple(row[1:]) for row in rows}  # type: ignore[misc]
