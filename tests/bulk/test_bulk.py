"""Bulk list cleaning from upload to download, over HTTP with a real worker."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from sqlalchemy import select

from models.session import transaction
from models.usage import UsagePeriod
from tests.fixtures.db import Persona, add_key
from tests.workers.harness import Api, Worker, poll_until_finished

DOMAINS = [f"bench-{i:03d}.test" for i in range(10)]


def a_list(count: int) -> list[str]:
    """``count`` addresses over the ten bench domains; user00-49 exist there, user50+ do not."""
    return [f"user{i % 60:02d}.{i // 60}@{DOMAINS[i % 10]}".replace(f".{0}@", "@") for i in range(count)]


def upload_csv(live_api: Api, persona: Persona, rows: list[str], header: bool = True, **params: Any) -> Any:
    text = ("email\n" if header else "") + "\n".join(rows) + "\n"
    return live_api.call(
        "post", "/bulk/jobs", persona, data=text.encode(), headers={"Content-Type": "text/csv"}, params=params
    )


def wait_finished(live_api: Api, persona: Persona, job_id: str, timeout: float = 90) -> dict[str, Any]:
    return poll_until_finished(live_api, persona, f"/bulk/jobs/{job_id}", timeout)


def test_a_csv_list_goes_from_upload_to_download(live_api: Api, worker: Worker, owner: Persona) -> None:
    rows = [f"user{i:02d}@{DOMAINS[i % 10]}" for i in range(300)] + [
        "nobody@bench-001.test",
        "not an address",
    ]
    rows.append("USER00@bench-000.test")  # a duplicate of the first, in another case

    created = upload_csv(live_api, owner, rows)

    assert created.status_code == 202, created.text
    job = created.json()
    assert job["id"].startswith("blk_")
    assert job["total"] == len(rows)
    finished = wait_finished(live_api, owner, job["id"])
    assert finished["status"] == "completed"
    assert finished["processed"] == len(rows)
    counts = finished["counts"]
    assert counts["valid"] + counts["warning"] + counts["invalid"] == len(rows)
    assert finished["etaSeconds"] == 0

    download = live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=csv", owner)
    assert download.status_code == 200
    assert download.headers["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(download.text)))
    assert [row["email"] for row in table] == rows  # the uploaded column, then the result columns
    by_input = {row["email"]: row for row in table}
    assert by_input["user01@bench-001.test"]["result_isValid"] == "true"
    assert by_input["nobody@bench-001.test"]["result_severity"] == "invalid"
    assert by_input["not an address"]["result_score"] == "0"
    duplicate = by_input["USER00@bench-000.test"]
    assert (duplicate["result_email"], duplicate["result_duplicateOf"]) == ("user00@bench-000.test", "0")
    assert duplicate["result_severity"] == by_input["user00@bench-000.test"]["result_severity"]


def test_a_json_list_downloads_as_json(live_api: Api, worker: Worker, owner: Persona) -> None:
    entries: list[Any] = ["alice@mailbox.test", {"email": "bob@mailbox.test"}, "zed@mailbox.test"]

    job = live_api.call("post", "/bulk/jobs", owner, json=entries, params={"quickMode": "true"}).json()
    wait_finished(live_api, owner, job["id"])
    results = json.loads(live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=json", owner).text)

    assert [item["input"] for item in results] == [
        "alice@mailbox.test",
        "bob@mailbox.test",
        "zed@mailbox.test",
    ]
    assert all("smtp" not in item["checks"] for item in results)  # quickMode


def test_the_list_is_charged_once_per_distinct_address(live_api: Api, worker: Worker, owner: Persona) -> None:
    rows = ["alice@mailbox.test"] * 5 + [" ALICE@mailbox.test", "bob@mailbox.test"]
    job = upload_csv(live_api, owner, rows, quickMode="true").json()
    wait_finished(live_api, owner, job["id"])

    with transaction() as session:
        used = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == owner.account_id))
    assert used == 2


def test_a_cancelled_list_stops_and_keeps_what_was_done(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    rows = [f"user{i % 50:02d}@slow.test" for i in range(5)] + ["alice@mailbox.test"]
    job = upload_csv(live_api, owner, rows).json()

    cancelled = live_api.call("post", f"/bulk/jobs/{job['id']}/cancel", owner)
    again = live_api.call("post", f"/bulk/jobs/{job['id']}/cancel", owner)

    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert again.json()["status"] == "cancelled"
    download = live_api.call("get", f"/bulk/jobs/{job['id']}/download", owner)
    assert download.status_code == 200
    assert len(list(csv.DictReader(io.StringIO(download.text)))) == len(rows)


def test_an_unfinished_list_cannot_be_downloaded_yet(live_api: Api, worker: Worker, owner: Persona) -> None:
    job = upload_csv(live_api, owner, ["alice@slow.test", "bob@slow.test"]).json()

    response = live_api.call("get", f"/bulk/jobs/{job['id']}/download", owner)

    assert response.status_code == 409
    live_api.call("post", f"/bulk/jobs/{job['id']}/cancel", owner)


def test_bad_uploads_are_refused(live_api: Api, owner: Persona) -> None:
    empty = upload_csv(live_api, owner, [])
    wrong_type = live_api.call(
        "post", "/bulk/jobs", owner, data=b"a@b.com", headers={"Content-Type": "text/plain"}
    )
    bad_entry = live_api.call("post", "/bulk/jobs", owner, json=["a@example.com", 5])
    broken_json = live_api.call(
        "post", "/bulk/jobs", owner, data=b'["a@example.com", ', headers={"Content-Type": "application/json"}
    )

    assert (empty.status_code, empty.json()["field"]) == (400, "body")
    assert wrong_type.status_code == 415
    assert (bad_entry.status_code, bad_entry.json()["field"]) == (400, "[1]")
    assert broken_json.status_code == 400


def test_uploads_may_exceed_the_json_api_body_limit(live_api: Api, owner: Persona) -> None:
    rows = [f"someone.with.a.long.name.{i:07d}@example.com" for i in range(30_000)]  # about 1.3 MB
    assert len("\n".join(rows)) > 1024 * 1024

    response = upload_csv(live_api, owner, rows, quickMode="true")

    assert response.status_code == 202, response.text
    assert response.json()["total"] == 30_000
    live_api.call("post", f"/bulk/jobs/{response.json()['id']}/cancel", owner)


def test_bulk_needs_the_bulk_scope_and_hides_other_accounts_lists(
    live_api: Api, owner: Persona, outsider: Persona
) -> None:
    validator = add_key(owner.account_id, "Validator key", ("validate:read", "validate:write"))
    job = upload_csv(live_api, owner, ["alice@mailbox.test"], quickMode="true").json()

    refused = upload_csv(live_api, validator, ["alice@mailbox.test"])
    hidden = live_api.call("get", f"/bulk/jobs/{job['id']}", outsider)
    hidden_download = live_api.call("get", f"/bulk/jobs/{job['id']}/download", outsider)
    hidden_cancel = live_api.call("post", f"/bulk/jobs/{job['id']}/cancel", outsider)

    assert refused.status_code == 403
    assert refused.json()["error"]["requiredScope"] == "bulk:*"
    assert [hidden.status_code, hidden_download.status_code, hidden_cancel.status_code] == [404, 404, 404]
