"""The Python client meets a real 429 (a Growth account's 10 requests a minute, spent) and retries it after
``Retry-After``, keeping the call's Idempotency-Key, so the service makes one batch of it."""

from __future__ import annotations

import time

import httpx
import pytest
from sqlalchemy import select
from verimail import Client, RateLimitError, RetryPolicy

from models import session as db_session
from models.accounts import Tier
from models.jobs import JobKind, ValidationJob
from tests.fixtures.db import open_twins
from tests.workers.harness import Gunicorn

PER_MINUTE = 10  # spec 8.1, Growth


def spend_the_minute(client: Client) -> None:
    """Use up the account's minute window (fixed, aligned to UTC minutes); started early enough in a
    minute that the refusals that follow fall in the same one."""
    left = 60 - time.time() % 60
    if left < 15:
        time.sleep(left + 0.5)
    for _ in range(PER_MINUTE):
        client.validate("deliverable@example.com")


@pytest.mark.timeout(240)  # the minute's window turns over once, up to 60 s after it was spent
def test_a_429_is_retried_after_retry_after_with_the_same_idempotency_key(service: Gunicorn) -> None:
    _, key = open_twins(Tier.GROWTH)
    attempts: list[tuple[float, str | None]] = []

    def seen(request: httpx.Request) -> None:
        attempts.append((time.monotonic(), request.headers.get("Idempotency-Key")))

    with Client(key.secret, base_url=service.base_url, retry=RetryPolicy(max_retries=0)) as impatient:
        spend_the_minute(impatient)
        with pytest.raises(RateLimitError) as refused:
            impatient.validate_batch(["deliverable@example.com"])
    waited = refused.value.retry_after
    http = httpx.Client(timeout=60, event_hooks={"request": [seen]})
    with Client(
        key.secret, base_url=service.base_url, http_client=http, retry=RetryPolicy(max_wait=61)
    ) as client:
        batch = client.validate_batch(["deliverable@example.com", "role@example.com"])
        again = client.validate_batch(
            ["deliverable@example.com", "role@example.com"], idempotency_key=attempts[0][1]
        )
    http.close()

    assert refused.value.status == 429
    assert waited is not None
    assert 0 < waited <= 60
    assert len(attempts) == 3  # a refused attempt, its retry, then the call made again with the key
    assert attempts[0][1] == attempts[1][1] == attempts[2][1]
    assert attempts[1][0] - attempts[0][0] >= min(waited, 60) - 1  # slept what it was told (whole seconds)
    assert again["batchId"] == batch["batchId"]
    with db_session.transaction() as session:
        mine = (ValidationJob.account_id == key.account_id) & (ValidationJob.kind == JobKind.BATCH)
        batches = session.scalars(select(ValidationJob.id).where(mine)).all()
    assert len(batches) == 1  # the refused attempt made none, the retry one, the call made again none


def test_a_wait_longer_than_the_cap_is_not_slept(service: Gunicorn) -> None:
    _, key = open_twins(Tier.GROWTH)
    with Client(key.secret, base_url=service.base_url, retry=RetryPolicy(max_retries=0)) as impatient:
        spend_the_minute(impatient)
    capped = RetryPolicy(max_retries=3, max_wait=0.5)
    with Client(key.secret, base_url=service.base_url, retry=capped) as client:
        started = time.monotonic()
        with pytest.raises(RateLimitError):
            client.validate("deliverable@example.com")

    assert time.monotonic() - started < 5
