"""Every instant the API writes is in one ISO 8601 form, UTC to the millisecond with a ``Z``, whichever
resource carries it: a single result, a batch and its results URL, a key and its refresh, an audit entry,
the usage report. A client parses one format and compares the strings of two resources directly."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, beat, job_env, live_api, worker

__all__ = ["beat", "job_env", "live_api", "worker"]

ONE_FORMAT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
QUICK = {"quickMode": True}


def assert_one_format(*stamps: str) -> None:
    """Each in the one form, and an instant near now (not local time written with a ``Z``)."""
    for stamp in stamps:
        assert ONE_FORMAT.fullmatch(stamp), stamp
        assert abs(datetime.fromisoformat(stamp) - datetime.now(UTC)) < timedelta(days=400), stamp


def test_a_single_result_writes_its_timestamp_with_a_z(live_api: Api, owner: Persona) -> None:
    body = live_api.call("post", "/validate", owner, json={"email": "alice@mailbox.test", "options": QUICK})

    assert body.status_code == 200, body.text
    assert_one_format(body.json()["metadata"]["timestamp"])


def test_a_batch_and_its_results_url_write_their_timestamps_with_a_z(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    emails = ["alice@mailbox.test", "not an address"]
    batch = live_api.call("post", "/validate/batch", owner, json={"emails": emails, "options": QUICK})
    assert batch.status_code == 200, batch.text
    page = live_api.call("get", f"/batches/{batch.json()['batchId']}/results", owner).json()

    assert_one_format(batch.json()["timestamp"], page["createdAt"], page["finishedAt"])


def test_a_key_and_its_refresh_write_their_timestamps_with_a_z(live_api: Api, owner: Persona) -> None:
    created = live_api.call("post", "/api/keys", owner, json={"name": "Timestamp check"})
    assert created.status_code == 201, created.text
    key = created.json()
    refreshed = live_api.call("post", f"/api/keys/{key['id']}/refresh", owner)
    assert refreshed.status_code == 200, refreshed.text

    assert_one_format(key["createdAt"], key["updatedAt"], key["secretIssuedAt"])
    assert_one_format(refreshed.json()["key"]["updatedAt"])


def test_an_audit_entry_writes_when_it_happened_with_a_z(live_api: Api, owner: Persona) -> None:
    live_api.call("post", "/api/keys", owner, json={"name": "Audited key"})

    entries = live_api.call("get", "/api/audit-log?type=key.created", owner)

    assert entries.status_code == 200, entries.text
    assert_one_format(*(entry["occurredAt"] for entry in entries.json()["data"]))


def test_the_usage_report_writes_its_instants_with_a_z(live_api: Api, owner: Persona) -> None:
    usage = live_api.call("get", "/api/usage", owner).json()

    period, rate = usage["period"], usage["rateLimit"]
    assert_one_format(period["start"], period["end"], rate["minuteResetsAt"], rate["dayResetsAt"])
