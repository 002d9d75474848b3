"""Uploads cannot exhaust memory: long lines, many columns, big or deeply nested JSON items are refused
naming where, before they are parsed whole; an account without room is refused before anything is stored.
The web process is real gunicorn, and its peak RSS is measured from /proc."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from models import session as db_session
from models.accounts import Tier
from models.jobs import JobItem, ValidationJob
from services.usage.plans import plan_for
from services.usage.quota import hard_limit_of
from tests.fixtures.db import Persona, open_persona
from tests.limits.helpers import fill
from tests.processes import Gunicorn, start_gunicorn

MIB = 1024 * 1024
BUDGET = 50 * MIB
HARD_LIMIT_BUSINESS = hard_limit_of(plan_for(Tier.BUSINESS).monthly_volume)


@pytest.fixture(scope="module")
def web(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    served = start_gunicorn(dict(os.environ), tmp_path_factory.mktemp("uploads"))
    yield served
    served.stop()


def peak_rss(server: Gunicorn) -> int:
    """The worker's high-water mark of resident memory, in bytes (VmHWM)."""
    [pid] = server.worker_pids()
    status = Path(f"/proc/{pid}/status").read_text()
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kib) * 1024


def upload(
    server: Gunicorn, persona: Persona, body: bytes, media_type: str, query: str = "quickMode=true"
) -> requests.Response:
    headers = persona.headers | {"Content-Type": media_type}
    return requests.post(f"{server.base_url}/bulk/jobs?{query}", data=body, headers=headers, timeout=120)


def test_hostile_uploads_are_refused_and_the_web_process_stays_within_50_mb_of_its_start(
    web: Gunicorn, owner: Persona
) -> None:
    warm_up = upload(web, owner, b"email\nann@example.com\n", "text/csv")  # imports and pools, once
    assert warm_up.status_code == 202, warm_up.text
    start = peak_rss(web)

    one_line = upload(web, owner, b"x" * (10 * MIB), "text/csv")
    assert (one_line.status_code, one_line.json()["field"]) == (400, "line 1"), one_line.text
    one_string = upload(web, owner, b'["' + b"x" * (10 * MIB) + b'"]', "application/json")
    assert (one_string.status_code, one_string.json()["field"]) == (400, "[0]")
    depth = 2_000_000
    nested = upload(
        web, owner, b'["a@example.com", {"email": ' + b"[" * depth + b"]" * depth + b"}]", "application/json"
    )
    assert (nested.status_code, nested.json()["field"]) == (400, "[1]")
    assert "nested" in nested.json()["message"]

    assert peak_rss(web) - start < BUDGET, f"peak RSS grew by {(peak_rss(web) - start) / MIB:.1f} MiB"


def test_a_line_past_the_limit_is_named_by_number(web: Gunicorn, owner: Persona) -> None:
    body = b"email\nann@example.com\n" + b"b" * 9000 + b"@example.com\n"
    response = upload(web, owner, body, "text/csv")
    assert response.status_code == 400
    assert (response.json()["field"], response.json()["message"][:7]) == ("line 3", "Line 3 ")


def test_a_line_with_too_many_columns_is_refused(web: Gunicorn, owner: Persona) -> None:
    response = upload(web, owner, b"email,name\nann@example.com,Ann\n" + b"," * 100 + b"\n", "text/csv")
    assert (response.status_code, response.json()["field"]) == (400, "line 3")
    assert "columns" in response.json()["message"]


def test_a_huge_number_in_a_json_list_is_refused_not_crashing_the_parser(
    web: Gunicorn, owner: Persona
) -> None:
    response = upload(web, owner, b"[" + b"1" * 20_000 + b"]", "application/json")
    assert (response.status_code, response.json()["field"]) == (400, "[0]")
    assert requests.get(f"{web.base_url}/health", timeout=10).status_code == 200


@pytest.mark.parametrize(
    ("item", "says"),
    [
        (b'{"email": "ann@example.com", "name": "Ann"}', "fields other than email: name"),
        (b'"' + b"a" * 309 + b'@example.com"', "longer than 320 characters"),
        (b'{"email": "' + b"a" * 309 + b'@example.com"}', "longer than 320 characters"),
    ],
)
def test_a_json_item_outside_what_openapi_says_is_refused_naming_it(
    web: Gunicorn, owner: Persona, item: bytes, says: str
) -> None:
    """/openapi.json: items are addresses of at most 320 characters, or objects with only ``email``."""
    response = upload(web, owner, b'["ann@example.com", ' + item + b"]", "application/json")
    assert (response.status_code, response.json()["field"]) == (400, "[1]")
    assert says in response.json()["message"]
    longest = upload(web, owner, b'["' + b"a" * 308 + b'@example.com"]', "application/json")
    assert longest.status_code == 202, longest.json()


@pytest.mark.parametrize(
    "body",
    [
        b'["ann@example.com", "bob@example.com"]',
        b'[{"email": "ann@example.com"}]',
        b'\xef\xbb\xbf\r\n  {"email": "ann@example.com"}',  # a BOM, a blank line, then an object
        b"{\n}\n",
        b"[]",
    ],
)
@pytest.mark.parametrize("query", ["quickMode=true", "dryRun=true"])
def test_json_sent_as_csv_is_refused_saying_so_and_nothing_is_stored(
    web: Gunicorn, body: bytes, query: str
) -> None:
    persona = open_persona(Tier.BUSINESS)
    response = upload(web, persona, body, "text/csv", query)
    assert response.status_code == 400, response.text
    assert response.json() == {
        "error": "Bad Request",
        "message": "The body is JSON, not CSV: send a JSON list with Content-Type: application/json.",
        "field": "body",
    }
    assert jobs_of(persona.account_id) == (0, 0)


def test_an_address_starting_with_a_brace_is_still_csv(web: Gunicorn, owner: Persona) -> None:
    response = upload(web, owner, b"{ann}@example.com\n", "text/csv", "dryRun=true")
    assert response.status_code == 200, response.text
    assert response.json()["addresses"] == 1


def jobs_of(account_id: int) -> tuple[int, int]:
    """(jobs, stored addresses) of the account, whatever their state."""
    with db_session.transaction() as session:
        jobs = session.scalar(select(func.count()).where(ValidationJob.account_id == account_id))
        items = session.scalar(
            select(func.count())
            .select_from(JobItem)
            .join(ValidationJob)
            .where(ValidationJob.account_id == account_id)
        )
    return jobs or 0, items or 0


@pytest.mark.parametrize(("room", "addresses"), [(0, 1000), (5, 10)])
def test_an_account_that_cannot_afford_a_list_is_refused_and_nothing_is_stored(
    web: Gunicorn, room: int, addresses: int
) -> None:
    persona = open_persona(Tier.BUSINESS)
    fill(persona.account_id, HARD_LIMIT_BUSINESS - room)
    rows = "".join(f"someone{i}@example.com\n" for i in range(addresses))  # distinct: each is charged
    response = upload(web, persona, f"email\n{rows}".encode(), "text/csv")
    assert response.status_code == 429, response.text
    error = response.json()["error"]
    assert error["code"] == "RATE_LIMIT_EXCEEDED"
    assert f"{room} of {HARD_LIMIT_BUSINESS}" in error["message"]
    assert jobs_of(persona.account_id) == (0, 0)
    assert requests.get(f"{web.base_url}/api/usage", headers=persona.headers, timeout=10).json()["quota"][
        "used"
    ] == (HARD_LIMIT_BUSINESS - room)
