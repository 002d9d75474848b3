"""A batch answers each entry as its own row: in submission order, with its ``index``, its ``input``
exactly as sent, its ``email`` trimmed and in lowercase (spec 2.1), and ``duplicateOf`` for a repeated
address; the same through the synchronous answer and the results URL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from models.session import transaction
from models.usage import UsagePeriod
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, wait_for

ENTRIES = [
    "\ufeffbob@mailbox.test",
    " John.Doe@MailBox.TEST ",
    "alice@mailbox.test\u00a0",
    "\tBOB@mailbox.test",
    "jörg@xn--mnchen-3ya.test",
    "jörg@münchen.test",
    "",
]
EXPECTED = [
    (0, "\ufeffbob@mailbox.test", "bob@mailbox.test", None),
    (1, " John.Doe@MailBox.TEST ", "john.doe@mailbox.test", None),
    (2, "alice@mailbox.test\u00a0", "alice@mailbox.test", None),
    (3, "\tBOB@mailbox.test", "bob@mailbox.test", 0),
    (4, "jörg@xn--mnchen-3ya.test", "jörg@xn--mnchen-3ya.test", None),
    (5, "jörg@münchen.test", "jörg@münchen.test", 4),  # the same domain in its Unicode form
    (6, "", "", None),
]


def rows(results: list[dict[str, Any]]) -> list[tuple[object, ...]]:
    return [(r["index"], r["input"], r["email"], r["duplicateOf"]) for r in results]


def test_the_answer_and_the_results_url_echo_every_entry_in_order(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    answered = live_api.call("post", "/validate/batch", owner, json={"emails": ENTRIES}).json()
    accepted = live_api.call(
        "post", "/validate/batch", owner, json={"emails": ENTRIES}, headers={"Prefer": "respond-async"}
    ).json()
    page = wait_for(live_api, owner, accepted["batchId"])

    assert rows(answered["results"]) == rows(page["results"]) == EXPECTED
    severities = [r["severity"] for r in answered["results"]]
    assert severities[:6] == ["valid", "invalid", "valid", "valid", "valid", "valid"]
    assert answered["results"][6]["checks"]["syntax"]["passed"] is False


def test_a_batch_is_charged_once_per_distinct_address(live_api: Api, worker: Worker, owner: Persona) -> None:
    live_api.call("post", "/validate/batch", owner, json={"emails": ENTRIES, "options": {"quickMode": True}})

    with transaction() as session:
        used = session.scalar(select(UsagePeriod.used).where(UsagePeriod.account_id == owner.account_id))
    assert used == 5  # bob, john.doe, alice, jörg@münchen, and the empty entry


def test_a_single_validation_echoes_the_same_way_through_the_workers_and_quick_mode(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    full = live_api.call("post", "/validate", owner, json={"email": "\u00a0Carol@MailBox.test "}).json()
    quick = live_api.call(
        "post",
        "/validate",
        owner,
        json={"email": "\u00a0Carol@MailBox.test ", "options": {"quickMode": True}},
    ).json()

    for body in (full, quick):
        assert (body["input"], body["email"]) == ("\u00a0Carol@MailBox.test ", "carol@mailbox.test")
        assert "index" not in body
        assert "duplicateOf" not in body
    assert full["checks"]["smtp"]["passed"] is True
