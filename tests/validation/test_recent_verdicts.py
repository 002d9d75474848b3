"""``options.maxAge``: an address the account validated recently is answered from that verdict, with no new
SMTP traffic (counted at the lab's servers), ``metadata.cached`` true and the first check's ``checkedAt``;
charged as any validation. Over HTTP, with a real worker, Postgres, Redis and the mail lab."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from maillab import MailLab
from models.jobs import RecentVerdict
from models.session import transaction
from services import retention
from tests.fixtures.db import Persona, open_persona
from tests.workers.harness import Api, Worker, poll_until_finished

HOUR = 3600


def validate(live_api: Api, persona: Persona, email: str, **options: Any) -> dict[str, Any]:
    response = live_api.call("post", "/validate", persona, json={"email": email, "options": options})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def batch(live_api: Api, persona: Persona, emails: list[str]) -> dict[str, Any]:
    """``emails`` validated as a batch with ``maxAge`` an hour; its 200 body."""
    body = {"emails": emails, "options": {"maxAge": HOUR}}
    response = live_api.call("post", "/validate/batch", persona, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def rcpts(lab: MailLab, server: str, local: str) -> int:
    """RCPT commands the lab's ``server`` received for ``local`` (kept sessions included)."""
    return sum(
        command.upper().startswith("RCPT") and f"<{local}@" in command
        for command in lab.servers[server].commands()
    )


def verdict(body: dict[str, Any]) -> tuple[Any, ...]:
    return body["score"], body["severity"], body["checks"], body["recommendations"]


def test_an_address_validated_within_max_age_is_answered_from_its_verdict_without_smtp(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    persona = open_persona()
    first = validate(live_api, persona, "alice@mailbox.test", maxAge=HOUR)
    sessions, asked = lab.servers["mailbox"].sessions_opened, rcpts(lab, "mailbox", "alice")

    again = validate(live_api, persona, "Alice@Mailbox.test", maxAge=HOUR)

    assert first["metadata"]["cached"] is False
    assert again["metadata"]["cached"] is True
    assert again["metadata"]["checkedAt"] == first["metadata"]["checkedAt"]
    assert again["metadata"]["timestamp"] > first["metadata"]["checkedAt"]
    assert verdict(again) == verdict(first)
    assert (again["input"], again["email"]) == ("Alice@Mailbox.test", "alice@mailbox.test")
    assert (asked, sessions) == (1, 1)
    assert lab.servers["mailbox"].sessions_opened == sessions  # no new SMTP session
    assert rcpts(lab, "mailbox", "alice") == asked  # nor a kept one asked again


def test_max_age_zero_and_requests_without_it_check_live(live_api: Api, worker: Worker, lab: MailLab) -> None:
    persona = open_persona()
    validate(live_api, persona, "bob@mailbox.test", maxAge=HOUR)

    unnamed = validate(live_api, persona, "bob@mailbox.test")
    zero = validate(live_api, persona, "bob@mailbox.test", maxAge=0)

    assert (unnamed["metadata"]["cached"], zero["metadata"]["cached"]) == (False, False)
    assert zero["metadata"]["checkedAt"] > unnamed["metadata"]["checkedAt"]
    assert rcpts(lab, "mailbox", "bob") == 3


def test_a_verdict_older_than_max_age_is_checked_live(live_api: Api, worker: Worker, lab: MailLab) -> None:
    persona = open_persona()
    first = validate(live_api, persona, "carol@mailbox.test", maxAge=HOUR)
    with transaction() as session:  # the verdict was made two hours ago
        session.execute(
            update(RecentVerdict)
            .where(RecentVerdict.account_id == persona.account_id)
            .values(checked_at=RecentVerdict.checked_at - timedelta(hours=2))
        )

    again = validate(live_api, persona, "carol@mailbox.test", maxAge=HOUR)

    assert again["metadata"]["cached"] is False
    assert again["metadata"]["checkedAt"] > first["metadata"]["checkedAt"]
    assert rcpts(lab, "mailbox", "carol") == 2


def test_another_accounts_verdict_is_never_used(live_api: Api, worker: Worker, lab: MailLab) -> None:
    validate(live_api, open_persona(), "dave@mailbox.test", maxAge=HOUR)

    other = validate(live_api, open_persona(), "dave@mailbox.test", maxAge=HOUR)

    assert other["metadata"]["cached"] is False
    assert rcpts(lab, "mailbox", "dave") == 2


def test_a_verdict_with_a_check_unknown_is_not_reused(live_api: Api, worker: Worker, lab: MailLab) -> None:
    persona = open_persona()
    first = validate(live_api, persona, "alice@greylist.test", maxAge=HOUR)  # 450: unknown, retry later

    again = validate(live_api, persona, "alice@greylist.test", maxAge=HOUR)

    assert first["checks"]["smtp"]["status"] == "unknown"
    assert again["metadata"]["cached"] is False
    assert rcpts(lab, "greylist", "alice") == 2


def test_a_batch_answers_known_addresses_from_verdicts_and_probes_the_rest(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    persona = open_persona()
    known = validate(live_api, persona, "erin@mailbox.test", maxAge=HOUR)
    emails = ["erin@mailbox.test", "frank@mailbox.test", "ERIN@mailbox.test", "not an address"]

    results = batch(live_api, persona, emails)["results"]
    assert [r["metadata"]["cached"] for r in results] == [True, False, True, False]
    assert results[0]["metadata"]["checkedAt"] == known["metadata"]["checkedAt"]
    assert results[0]["checks"] == known["checks"]
    assert [r["input"] for r in results] == emails
    assert (rcpts(lab, "mailbox", "erin"), rcpts(lab, "mailbox", "frank")) == (1, 1)


def test_a_batch_whose_every_address_is_known_completes_without_a_probe(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    persona = open_persona()
    validate(live_api, persona, "grace@mailbox.test", maxAge=HOUR)
    sessions = lab.servers["mailbox"].sessions_opened

    body = batch(live_api, persona, ["grace@mailbox.test"])

    result = body["results"][0]
    assert (body["status"], result["metadata"]["cached"]) == ("completed", True)
    assert body[result["severity"]] == 1  # counted by its verdict's severity
    assert lab.servers["mailbox"].sessions_opened == sessions


def test_answers_from_recent_verdicts_are_charged_as_validations(live_api: Api, worker: Worker) -> None:
    persona = open_persona()
    validate(live_api, persona, "heidi@mailbox.test", maxAge=HOUR)
    assert validate(live_api, persona, "heidi@mailbox.test", maxAge=HOUR)["metadata"]["cached"] is True
    batch(live_api, persona, ["heidi@mailbox.test"])

    usage = live_api.call("get", "/api/usage", persona).json()

    assert usage["quota"]["used"] == 3


def test_quick_mode_answers_from_a_quick_verdict_only(live_api: Api, worker: Worker, lab: MailLab) -> None:
    persona = open_persona()
    full = validate(live_api, persona, "ivan@mailbox.test", maxAge=HOUR)

    quick = validate(live_api, persona, "ivan@mailbox.test", quickMode=True, maxAge=HOUR)
    quick_again = validate(live_api, persona, "ivan@mailbox.test", quickMode=True, maxAge=HOUR)

    assert quick["metadata"]["cached"] is False  # a full verdict does not answer a quick request
    assert "smtp" not in quick["checks"] or quick["checks"]["smtp"]["status"] == "skipped"
    assert quick_again["metadata"]["cached"] is True
    assert quick_again["metadata"]["checkedAt"] == quick["metadata"]["checkedAt"]
    assert verdict(quick_again) == verdict(quick)
    assert full["metadata"]["cached"] is False


def test_a_quick_validation_without_max_age_keeps_no_verdict(live_api: Api, worker: Worker) -> None:
    persona = open_persona()
    validate(live_api, persona, "olivia@mailbox.test", quickMode=True)

    later = validate(live_api, persona, "olivia@mailbox.test", quickMode=True, maxAge=HOUR)

    assert later["metadata"]["cached"] is False


def test_a_cached_answer_is_on_its_own_results_url(live_api: Api, worker: Worker) -> None:
    persona = open_persona()
    validate(live_api, persona, "judy@mailbox.test", maxAge=HOUR)
    answered = batch(live_api, persona, ["judy@mailbox.test"])

    page = live_api.call("get", f"/batches/{answered['batchId']}/results", persona).json()

    assert page["results"][0]["metadata"]["cached"] is True
    assert page["results"][0]["metadata"]["checkedAt"] == answered["results"][0]["metadata"]["checkedAt"]


def test_a_bulk_list_with_max_age_answers_known_addresses_from_verdicts(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    persona = open_persona()
    known = validate(live_api, persona, "mallory@mailbox.test", maxAge=HOUR)
    entries = ["mallory@mailbox.test", "niaj@mailbox.test"]

    job = live_api.call("post", "/bulk/jobs", persona, json=entries, params={"maxAge": str(HOUR)}).json()
    poll_until_finished(live_api, persona, f"/bulk/jobs/{job['id']}", 60)
    rows = live_api.call("get", f"/bulk/jobs/{job['id']}/download?format=json", persona).json()

    assert [row["metadata"]["cached"] for row in rows] == [True, False]
    assert rows[0]["metadata"]["checkedAt"] == known["metadata"]["checkedAt"]
    assert (rcpts(lab, "mailbox", "mallory"), rcpts(lab, "mailbox", "niaj")) == (1, 1)


def test_verdicts_older_than_the_longest_max_age_are_purged(live_api: Api, worker: Worker) -> None:
    persona = open_persona()
    for email in ("peggy@mailbox.test", "rupert@mailbox.test"):
        validate(live_api, persona, email, maxAge=HOUR)
    mine = RecentVerdict.account_id == persona.account_id
    with transaction() as session:
        session.execute(
            update(RecentVerdict)
            .where(mine, RecentVerdict.email == "peggy@mailbox.test")
            .values(checked_at=RecentVerdict.checked_at - timedelta(days=30, minutes=1))
        )

    retention.purge_expired()

    with transaction() as session:
        kept = session.scalars(select(RecentVerdict.email).where(mine)).all()
    assert kept == ["rupert@mailbox.test"]


@pytest.mark.parametrize("max_age", [-1, 2_592_001, "60", 1.5, True])
@pytest.mark.parametrize("path", ["/validate", "/validate/batch"])
def test_a_bad_max_age_is_refused_naming_the_field(
    live_api: Api, owner: Persona, path: str, max_age: object
) -> None:
    address = {"email": "bob@mailbox.test"} if path == "/validate" else {"emails": ["bob@mailbox.test"]}

    response = live_api.call("post", path, owner, json={**address, "options": {"maxAge": max_age}})

    assert response.status_code == 400, response.text
    assert (response.json()["error"], response.json()["field"]) == ("Bad Request", "options.maxAge")
    assert response.json()["message"]


def test_a_whole_number_written_with_a_fraction_is_a_max_age(live_api: Api, worker: Worker) -> None:
    persona = open_persona()
    validate(live_api, persona, "sybil@mailbox.test", maxAge=HOUR)

    again = validate(live_api, persona, "sybil@mailbox.test", maxAge=3600.0)

    assert again["metadata"]["cached"] is True


def test_the_api_description_documents_max_age_and_cached(live_api: Api) -> None:
    document = live_api.call("get", "/openapi.json").json()
    schemas = document["components"]["schemas"]

    bulk = document["paths"]["/bulk/jobs"]["post"]["parameters"]

    for options in ("SingleOptions", "ValidateOptions"):
        assert schemas[options]["properties"]["maxAge"]["maximum"] == 2_592_000
    assert "maxAge" in [parameter["name"] for parameter in bulk]
    for metadata in ("MetadataOut", "ResultMetadataOut"):
        assert {"cached", "checkedAt"} <= set(schemas[metadata]["properties"])
