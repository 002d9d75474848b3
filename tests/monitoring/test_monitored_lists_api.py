"""The monitored-list API without workers: an unfinished list cannot be kept, a kept one is rescheduled,
paused and forgotten by its owner, and is unknown to an outsider."""

from __future__ import annotations

import secrets
from datetime import timedelta

from flask.testing import FlaskClient
from sqlalchemy import select, update

from models.jobs import ValidationJob
from models.monitoring import MonitoredList
from models.session import transaction
from tests.fixtures.db import Persona


def test_a_kept_list_is_rescheduled_paused_and_forgotten_by_its_owner_only(
    client: FlaskClient, owner: Persona, outsider: Persona
) -> None:
    uploaded = client.post(
        "/bulk/jobs",
        data=b"email\nalice@example.com\n",
        headers={**owner.headers, "Content-Type": "text/csv"},
    ).get_json()
    refused = client.post(
        "/monitored-lists", json={"jobId": uploaded["id"], "schedule": "weekly"}, headers=owner.headers
    )
    assert refused.status_code == 409
    assert "only a completed list can be kept" in refused.get_json()["message"]

    list_id = _kept(uploaded["id"])
    monthly = client.patch(f"/monitored-lists/{list_id}", json={"schedule": "monthly"}, headers=owner.headers)
    paused = client.patch(f"/monitored-lists/{list_id}", json={"paused": True}, headers=owner.headers)
    foreign = client.patch(f"/monitored-lists/{list_id}", json={"paused": False}, headers=outsider.headers)
    empty = client.patch(f"/monitored-lists/{list_id}", json={}, headers=owner.headers)

    assert monthly.status_code == 200, monthly.get_json()
    assert (monthly.get_json()["schedule"], paused.get_json()["paused"]) == ("monthly", True)
    assert monthly.get_json()["jobId"] == uploaded["id"]
    assert foreign.status_code == 404
    assert empty.status_code == 400
    assert client.get("/monitored-lists", headers=outsider.headers).get_json()["data"] == []
    assert client.delete(f"/monitored-lists/{list_id}", headers=outsider.headers).status_code == 404
    assert client.delete(f"/monitored-lists/{list_id}", headers=owner.headers).get_json()["deleted"] is True
    assert client.get(f"/monitored-lists/{list_id}", headers=owner.headers).status_code == 404


def _kept(job_public_id: str) -> str:
    """The list completed and kept directly (no worker here: the keeping rule is what the 409 showed)."""
    public_id = f"mon_{secrets.token_hex(12)}"
    with transaction() as session:
        job = session.scalars(select(ValidationJob).where(ValidationJob.public_id == job_public_id)).one()
        session.execute(update(ValidationJob).where(ValidationJob.id == job.id).values(status="completed"))
        session.add(
            MonitoredList(
                public_id=public_id,
                account_id=job.account_id,
                livemode=True,
                source_job_id=job.id,
                name="newsletter.csv",
                addresses=1,
                schedule="weekly",
                next_run_at=job.created_at + timedelta(weeks=1),
            )
        )
    return public_id
