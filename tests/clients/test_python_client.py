"""The Python client (clients/python, ``verimail``) against the running service in test mode: what a
developer calling it sees, sync and async."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from verimail import (
    AsyncClient,
    AuthenticationError,
    Client,
    InvalidRequestError,
    TokenError,
)

from tests.browser.helpers import NOT_AN_ADDRESS
from tests.clients.helpers import list_file, page_token, sandbox_key
from tests.workers.harness import Gunicorn

MAGIC = ["deliverable@example.com", "undeliverable@example.com", "disposable@example.com"]


def test_one_address_sync_and_async(service: Gunicorn) -> None:
    key = sandbox_key()
    with Client(key.secret, base_url=service.base_url) as client:
        result = client.validate("deliverable@example.com")

    async def asynchronously() -> dict[str, object]:
        async with AsyncClient(key.secret, base_url=service.base_url) as client:
            return dict(await client.validate("undeliverable@example.com", quick_mode=False))

    other = asyncio.run(asynchronously())
    assert (result["isValid"], result["severity"], dict(result)["livemode"]) == (True, "valid", False)
    assert (other["isValid"], other["severity"]) == (False, "invalid")


def test_a_batch_then_its_results_page_by_page(service: Gunicorn) -> None:
    key = sandbox_key()
    with Client(key.secret, base_url=service.base_url) as client:
        batch = client.validate_batch(MAGIC)
        assert "batchId" in batch
        client.wait_for_batch(batch["batchId"], interval=0.2, timeout=60)
        results = list(client.iter_results(batch["batchId"], page_size=2))

    assert [result["email"] for result in results] == MAGIC
    assert [result["isValid"] for result in results] == [True, False, True]


def test_a_list_uploaded_from_a_file_with_progress_waited_for_downloaded_and_iterated(
    service: Gunicorn, tmp_path: Path
) -> None:
    key, path = sandbox_key(), list_file(tmp_path, 120)
    seen: list[tuple[int, int | None]] = []
    with Client(key.secret, base_url=service.base_url) as client:
        job = client.upload(path, on_progress=lambda sent, total: seen.append((sent, total)))
        finished = client.wait_for_upload(job["id"], interval=0.3, timeout=90)
        written = client.download(job["id"], tmp_path / "results.csv")
        results = list(client.iter_results(job["id"], page_size=50))

    size = path.stat().st_size
    assert (seen[0], seen[-1]) == ((0, size), (size, size))
    assert (job["id"].startswith("blk_"), finished["status"], finished["total"]) == (True, "completed", 120)
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    assert written == (tmp_path / "results.csv").stat().st_size
    assert [row["result_isValid"] for row in rows[:2]] == ["true", "false"]
    assert len(rows) == len(results) == 120
    assert [result["input"] for result in results[:2]] == [
        "deliverable+0@example.com",
        "undeliverable+1@example.com",
    ]


def test_the_async_client_batches_iterates_and_uploads_a_stream(service: Gunicorn) -> None:
    key = sandbox_key()
    body = json.dumps([f"deliverable+{n}@example.com" for n in range(30)]).encode()
    seen: list[int] = []
    iterated: list[str] = []

    async def upload_and_download() -> tuple[dict[str, object], bytes]:
        async with AsyncClient(key.secret, base_url=service.base_url) as client:
            batch = await client.validate_batch(MAGIC)
            await client.wait_for_batch(batch["batchId"], interval=0.2, timeout=60)
            iterated.extend(
                [result["email"] async for result in client.iter_results(batch["batchId"], page_size=2)]
            )
            job = await client.upload(
                io.BytesIO(body), format="json", on_progress=lambda s, _t: seen.append(s)
            )
            await client.wait_for_upload(job["id"], interval=0.3, timeout=60)
            out = io.BytesIO()
            await client.download(job["id"], out, format="json")
            return dict(job), out.getvalue()

    job, downloaded = asyncio.run(upload_and_download())
    assert iterated == MAGIC
    assert (job["total"], seen[-1]) == (30, len(body))
    assert [row["isValid"] for row in json.loads(downloaded)] == [True] * 30


def test_errors_are_typed_by_their_codes(service: Gunicorn) -> None:
    key = sandbox_key()
    stranger = Client("sk_test_" + "0" * 40, base_url=service.base_url)
    with stranger, pytest.raises(AuthenticationError) as refused:
        stranger.validate("deliverable@example.com")
    with Client(key.secret, base_url=service.base_url) as client:
        with pytest.raises(InvalidRequestError) as empty:
            client.validate_batch([])
        with pytest.raises(InvalidRequestError) as too_many:
            client.validate_batch([f"deliverable+{n}@example.com" for n in range(101)])
        with pytest.raises(InvalidRequestError) as too_long:
            client.validate("a" * 300 + "@example.com")

    assert (refused.value.status, refused.value.code) == (401, "INVALID_API_KEY")
    assert (empty.value.status, empty.value.code) == (400, "BATCH_EMPTY")
    assert (too_many.value.code, too_many.value.details["submitted"]) == ("BATCH_TOO_LARGE", 101)
    assert (too_long.value.status, too_long.value.code, too_long.value.field) == (400, None, "email")
    assert "email" in too_long.value.message


def test_a_verdict_token_confirms_once(service: Gunicorn) -> None:
    form, page = page_token(service)
    with Client(form.secret, base_url=service.base_url) as client:
        confirmed = client.confirm_token(page["token"], NOT_AN_ADDRESS)
        with pytest.raises(TokenError) as replayed:
            client.confirm_token(page["token"], NOT_AN_ADDRESS)

    assert (confirmed["confirmed"], confirmed["verdict"]) == (True, page["verdict"])
    assert (replayed.value.status, replayed.value.code) == (409, "TOKEN_ALREADY_CONFIRMED")
