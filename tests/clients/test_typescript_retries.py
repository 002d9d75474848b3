"""The TypeScript client meets a real 429 (a Growth account's 10 requests a minute, spent) and retries it
after ``Retry-After``, keeping the call's Idempotency-Key, so the service makes one batch of it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import select

from models import session as db_session
from models.accounts import Tier
from models.jobs import JobKind, ValidationJob
from tests.clients.test_python_retries import PER_MINUTE
from tests.fixtures.db import open_twins
from tests.workers.harness import Gunicorn

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.mark.timeout(240)  # the minute's window turns over once, up to 60 s after it was spent
def test_a_429_is_retried_after_retry_after_with_the_same_idempotency_key(service: Gunicorn) -> None:
    _, key = open_twins(Tier.GROWTH)
    env = os.environ | {
        "VERIMAIL_API_KEY": key.secret,
        "VERIMAIL_BASE_URL": service.base_url,
        "PER_MINUTE": str(PER_MINUTE),
    }

    ran = subprocess.run(
        ["node", str(ROOT / "tests/clients/typescript_retry.mjs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
        check=False,
    )

    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    refused, attempts = report["refused"], report["attempts"]
    assert refused["status"] == 429
    assert 0 < refused["retryAfter"] <= 60
    assert len(attempts) == 3  # a refused attempt, its retry, then the call made again with the key
    assert attempts[0]["key"] == attempts[1]["key"] == attempts[2]["key"] is not None
    assert attempts[1]["at"] - attempts[0]["at"] >= refused["retryAfter"] - 1  # slept what it was told
    assert report["sameBatch"]
    with db_session.transaction() as session:
        mine = (ValidationJob.account_id == key.account_id) & (ValidationJob.kind == JobKind.BATCH)
        batches = session.scalars(select(ValidationJob.id).where(mine)).all()
    assert len(batches) == 1  # the refused attempt made none, the retry one, the call made again none
