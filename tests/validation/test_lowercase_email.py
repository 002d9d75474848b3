"""A result's ``email`` is the address validated, in lowercase (spec 2.1), on every way a result comes back:
a single validation (quickMode and through a worker), a batch, its results URL, a list's CSV and JSON
downloads. The domain keeps the form it was written in (an A-label stays one, a Unicode domain stays
Unicode); ``input`` keeps the text exactly as sent and ``index`` its position: what a client joins on."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from services.validation.bulk_download import RESULT_COLUMNS
from tests.bulk.test_list_roundtrip import as_csv, finished, upload
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for

# (as sent, as answered): padded, in odd cases, a Unicode domain, the same domain as an A-label, no address
ENTRIES = [
    (" Alice@MailBox.TEST", "alice@mailbox.test"),
    ("JÖRG@MÜNCHEN.test", "jörg@münchen.test"),
    ("Jörg@XN--MNCHEN-3YA.test\t", "jörg@xn--mnchen-3ya.test"),
    ("BOB@mailbox.test", "bob@mailbox.test"),
    ("Not An Address", "not an address"),
]
SENT = [sent for sent, _ in ENTRIES]
ANSWERED = [answered for _, answered in ENTRIES]


def joined(results: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    return [(result["index"], result["input"], result["email"]) for result in results]


@pytest.mark.parametrize("quick_mode", [True, False], ids=["quickMode", "through-a-worker"])
def test_a_single_validation_answers_the_address_in_lowercase_and_the_input_as_sent(
    live_api: Api, worker: Worker, owner: Persona, quick_mode: bool
) -> None:
    sent = "\u00a0Carol@MailBox.TEST "
    response = live_api.call(
        "post", "/validate", owner, json={"email": sent, "options": {"quickMode": quick_mode}}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["input"], body["email"], body["severity"]) == (sent, "carol@mailbox.test", "valid")
    assert ("smtp" in body["checks"]) is not quick_mode


def test_a_batch_and_its_results_url_answer_every_address_in_lowercase(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    answer = live_api.call("post", "/validate/batch", owner, json={"emails": SENT})
    assert answer.status_code == 200, answer.text
    page = wait_for(live_api, owner, answer.json()["batchId"])

    expected = [(index, sent, answered) for index, (sent, answered) in enumerate(ENTRIES)]
    assert joined(answer.json()["results"]) == joined(page["results"]) == expected
    assert [result["duplicateOf"] for result in page["results"]] == [None, None, 1, None, None]


def test_a_lists_downloads_write_the_address_in_lowercase_beside_the_row_as_uploaded(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    job = upload(live_api, owner, as_csv([["id", "email"], *[[str(i), sent] for i, sent in enumerate(SENT)]]))
    assert job.status_code == 202, job.text
    assert finished(live_api, owner, job.json()["id"])["status"] == "completed"
    download = f"/bulk/jobs/{job.json()['id']}/download"

    rows = list(csv.DictReader(io.StringIO(live_api.call("get", f"{download}?format=csv", owner).text)))
    items = json.loads(live_api.call("get", f"{download}?format=json", owner).text)

    assert list(rows[0]) == ["id", "email", *RESULT_COLUMNS]
    assert [(row["email"], row["result_email"]) for row in rows] == ENTRIES
    assert joined(items) == [(index, sent, answered) for index, (sent, answered) in enumerate(ENTRIES)]
