"""Issue 12's target: every row of an uploaded CSV with extra columns, blank lines, duplicates and padded
addresses comes back in the download, in order, with its own columns intact; and each result says which
row it answers. Over HTTP, with a real worker, charged in Postgres."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from sqlalchemy import func, select

from models.accounts import Tier
from models.jobs import ValidationJob
from models.session import transaction
from models.usage import UsagePeriod
from services.validation.bulk_download import NO_ADDRESS, RESULT_COLUMNS
from tests.fixtures.db import Persona, open_persona
from tests.limits.helpers import fill
from tests.workers.harness import Api, Worker, poll_until_finished

HEADER = ["id", "name", "Email", "+city"]  # a header cell is a cell too
# What a list exported from a CRM looks like: the address in the third column, padded, in odd cases,
# twice or more, some rows with no address at all, an empty line, and cells a spreadsheet would run.
ROWS: list[list[str]] = [
    ["1", "Alice", " alice@mailbox.test ", "Paris"],
    ["2", "Bob", "bob@mailbox.test", "Lyon"],
    [],  # an empty line
    ["3", "Alice again", "ALICE@mailbox.test\t", "Paris"],  # a duplicate of row 0
    ["4", "No address", "", "Nantes"],
    ["5", '=HYPERLINK("http://evil.example")', "\u00a0zed@mailbox.test", "-1+1"],
    ["6", "Plus", "+alice@mailbox.test", "@home"],
    ["7", "Broken", "not an address", "Nice", "an extra cell"],  # wider than the header
    ["8", "Alice thrice", "alice@mailbox.test", "Paris"],  # a duplicate of row 0
]
ADDRESS_ROWS = [0, 1, 3, 5, 6, 7, 8]
DISTINCT = 5  # alice (rows 0, 3, 8), bob, zed, +alice, "not an address"


def as_csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue().encode()


def spreadsheet_safe(cell: str) -> str:
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


def upload(live_api: Api, persona: Persona, body: bytes, **params: str) -> Any:
    return live_api.call(
        "post",
        "/bulk/jobs",
        persona,
        data=body,
        headers={"Content-Type": "text/csv"},
        params={"quickMode": "true", **params},
    )


def finished(live_api: Api, persona: Persona, job_id: str) -> dict[str, Any]:
    return poll_until_finished(live_api, persona, f"/bulk/jobs/{job_id}", 90)


def used(persona: Persona) -> int:
    with transaction() as session:
        count = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == persona.account_id))
    return count or 0


def test_every_row_comes_back_in_order_with_its_own_columns_and_the_results_appended(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    created = upload(live_api, owner, as_csv([HEADER, *ROWS]))

    assert created.status_code == 202, created.text
    assert created.json()["total"] == len(ADDRESS_ROWS)  # rows with an address
    assert finished(live_api, owner, created.json()["id"])["status"] == "completed"
    download = live_api.call("get", f"/bulk/jobs/{created.json()['id']}/download?format=csv", owner)
    header, *table = list(csv.reader(io.StringIO(download.text)))

    assert header == [*map(spreadsheet_safe, HEADER), "column_5", *RESULT_COLUMNS]
    assert len(table) == len(ROWS)
    for row, uploaded in zip(table, ROWS, strict=True):
        assert row[:5] == [spreadsheet_safe(cell) for cell in uploaded] + [""] * (5 - len(uploaded))
    results = [dict(zip(RESULT_COLUMNS, row[5:], strict=True)) for row in table]
    assert [r["result_email"] for r in results] == [
        "alice@mailbox.test",
        "bob@mailbox.test",
        "",
        "alice@mailbox.test",
        "",
        "zed@mailbox.test",
        "'+alice@mailbox.test",
        "not an address",
        "alice@mailbox.test",
    ]
    assert [r["result_duplicateOf"] for r in results] == ["", "", "", "0", "", "", "", "", "0"]
    assert [r["result_reason"] for r in results if not r["result_severity"]] == [NO_ADDRESS] * 2
    assert results[3]["result_severity"] == results[8]["result_severity"] == results[0]["result_severity"]
    assert results[7]["result_isValid"] == "false"
    assert used(owner) == DISTINCT


def test_the_json_download_keeps_original_values_and_says_which_row_each_result_answers(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    job = upload(live_api, owner, as_csv([HEADER, *ROWS])).json()
    finished(live_api, owner, job["id"])

    items = json.loads(live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=json", owner).text)

    assert [item["index"] for item in items] == list(range(len(ROWS)))
    assert [item["input"] for item in items] == [row[2] if len(row) > 2 else "" for row in ROWS]
    assert items[6]["email"] == "+alice@mailbox.test"  # no quote: JSON is not run by a spreadsheet
    assert items[5]["email"] == "zed@mailbox.test"
    assert (items[3]["duplicateOf"], items[8]["duplicateOf"], items[0]["duplicateOf"]) == (0, 0, None)
    assert items[2]["status"] == items[4]["status"] == NO_ADDRESS


def test_the_results_url_pages_through_the_addresses_with_their_index(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    job = upload(live_api, owner, as_csv([HEADER, *ROWS])).json()
    finished(live_api, owner, job["id"])

    first = live_api.call("get", f"/batches/{job['id']}/results?limit=4", owner).json()
    after = first["nextStartingAfter"]
    rest = live_api.call("get", f"/batches/{job['id']}/results?startingAfter={after}", owner).json()

    results = first["results"] + rest["results"]
    assert [r["index"] for r in results] == ADDRESS_ROWS  # blank rows hold no result
    assert [r["input"] for r in results] == [ROWS[i][2] for i in ADDRESS_ROWS]
    assert [r["email"] for r in results][:3] == [
        "alice@mailbox.test",
        "bob@mailbox.test",
        "alice@mailbox.test",
    ]
    assert [r["duplicateOf"] for r in results] == [None, None, 0, None, None, None, 0]


def test_a_csv_without_a_header_keeps_its_first_row_and_names_its_columns(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    rows = [["alice@mailbox.test", "Alice"], ["bob@mailbox.test"], ["", "nobody", "x"]]
    job = upload(live_api, owner, as_csv(rows)).json()
    finished(live_api, owner, job["id"])

    text = live_api.call("get", f"/bulk/jobs/{job['id']}/download", owner).text
    header, *table = list(csv.reader(io.StringIO(text)))

    assert header == ["column_1", "column_2", "column_3", *RESULT_COLUMNS]
    assert [row[:3] for row in table] == [
        ["alice@mailbox.test", "Alice", ""],
        ["bob@mailbox.test", "", ""],
        ["", "nobody", "x"],
    ]
    assert [row[3] for row in table] == ["alice@mailbox.test", "bob@mailbox.test", ""]


def test_a_dry_run_counts_the_list_and_prices_it_without_storing_or_charging(
    live_api: Api, owner: Persona
) -> None:
    before = used(owner)

    response = upload(
        live_api, owner, as_csv([HEADER, *ROWS, ["9", "Carol", "carol@catchall.test", ""]]), dryRun="true"
    )

    assert response.status_code == 200, response.text
    summary = response.json()
    assert summary == {
        "rows": len(ROWS) + 1,
        "blankRows": 2,
        "addresses": len(ADDRESS_ROWS) + 1,
        "duplicates": 2,
        "distinctAddresses": DISTINCT + 1,
        "syntaxFailures": 1,
        "distinctDomains": 2,  # mailbox.test and catchall.test
        "cost": {
            "validations": DISTINCT + 1,
            "withinQuota": DISTINCT + 1,
            "overage": 0,
            "wouldBeRefused": False,
            "quota": {"limit": 40_000, "used": before, "remaining": 40_000 - before, "hardLimit": 48_000},
        },
        "livemode": True,
    }
    assert used(owner) == before
    with transaction() as session:
        jobs = session.scalar(
            select(func.count())
            .select_from(ValidationJob)
            .where(ValidationJob.account_id == owner.account_id)
        )
    assert jobs == 0


@pytest.mark.parametrize(
    ("used_before", "count", "within", "overage", "refused"),
    # Growth: quota 5,000, hard limit 6,000; a refused list runs whole or not at all
    [(4_998, 5, 2, 3, False), (5_998, 5, 0, 0, True), (4_990, 1_020, 0, 0, True)],
)
def test_a_dry_run_says_how_much_would_run_as_overage_or_be_refused(
    live_api: Api, used_before: int, count: int, within: int, overage: int, refused: bool
) -> None:
    growth = open_persona(Tier.GROWTH)
    fill(growth.account_id, used_before)
    addresses = [[f"person{i}@example.com"] for i in range(count)]

    cost = upload(live_api, growth, as_csv([["email"], *addresses]), dryRun="true").json()["cost"]
    upload_for_real = upload(live_api, growth, as_csv([["email"], *addresses]))

    assert (cost["validations"], cost["withinQuota"], cost["overage"]) == (count, within, overage)
    assert cost["wouldBeRefused"] is refused
    assert upload_for_real.status_code == (429 if refused else 202)


def test_a_list_of_blank_rows_holds_no_addresses(live_api: Api, owner: Persona) -> None:
    response = upload(live_api, owner, b"email\r\n\r\n , \r\n\r\n")
    dry = upload(live_api, owner, b"email\r\n\r\n , \r\n\r\n", dryRun="true")

    assert (response.status_code, response.json()["field"]) == (400, "body")
    assert "no addresses" in response.json()["message"]
    assert dry.status_code == 400
    assert used(owner) == 0
