"""A service whose processes may each hold a single Postgres connection (``DATABASE_POOL_SIZE=1``) still
finishes batches: no code path holds one connection while it waits for a second, which in a gevent worker
of hundreds of greenlets would exhaust any pool (each greenlet holding one, all waiting for another) and
fail every group after the pool's timeout."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.fixtures.db import Persona, open_persona
from tests.processes import Gunicorn, start_gunicorn, start_worker

DOMAINS = [f"bench-{i:03d}.test" for i in range(10)]


@pytest.fixture(scope="module")
def service(job_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    """gunicorn and a worker, both with one connection each."""
    env = job_env | {"DATABASE_POOL_SIZE": "1"}
    worker = start_worker(env, f"oneconn{os.getpid()}")
    served = start_gunicorn(env, tmp_path_factory.mktemp("oneconn"))
    yield served
    served.stop()
    worker.stop()


def _get(service: Gunicorn, persona: Persona, path: str) -> dict[str, Any]:
    response = requests.get(service.base_url + path, headers=persona.headers, timeout=60)
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize("retry_temporary", [False, True], ids=["plain", "retryTemporary"])
def test_one_database_connection_per_process_still_finishes_a_batch_over_ten_domains(
    service: Gunicorn, retry_temporary: bool
) -> None:
    persona = open_persona()
    emails = [f"user{j:02d}@{domain}" for j in range(3) for domain in DOMAINS]
    emails += [f"nobody@{domain}" for domain in DOMAINS]
    request = {"emails": emails, "options": {"retryTemporary": retry_temporary}}

    response = requests.post(
        service.base_url + "/validate/batch", json=request, headers=persona.headers, timeout=60
    )

    assert response.status_code == 200, response.text  # answered within BATCH_SYNC_WAIT_SECONDS (20)
    body = _get(service, persona, f"/batches/{response.json()['batchId']}/results?limit=100")
    assert body["status"] == "completed"
    passed = {result["email"]: result["checks"]["smtp"]["passed"] for result in body["results"]}
    assert passed == {email: email.startswith("user") for email in emails}
