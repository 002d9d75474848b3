"""Web processes keep API keys in memory (``services.snapshots``); a revoked or rotated key must still be
refused by every one of them within a second. Real gunicorn with three worker processes; each
request below opens its own connection, and the kernel spreads connections over the workers
(``reuse_port``), so thirty of them reach every worker with near certainty (a worker missed by all thirty:
3 x (2/3)^30, about 1 in 200,000).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.fixtures.db import Persona, add_key, open_persona
from tests.web.test_gunicorn import free_port, wait_until_serving

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 3
ROUND = 30  # fresh connections per check
WITHIN_SECONDS = 1.0


@pytest.fixture(scope="module")
def served(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("gunicorn-workers") / "server.log"
    env = os.environ | {"PORT": str(port), "WEB_CONCURRENCY": str(WORKERS), "APP_ENV": "development"}
    command = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--no-control-socket"]
    with log.open("wb") as sink:
        server = subprocess.Popen([*command, "web:create_app()"], cwd=ROOT, env=env, stdout=sink, stderr=sink)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, server)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def statuses(base: str, secret: str) -> list[int]:
    """One quick validation per fresh connection (no keep-alive: each may land on another worker)."""
    answers = []
    for _ in range(ROUND):
        with requests.Session() as fresh:
            answers.append(
                fresh.post(
                    f"{base}/validate",
                    json={"email": "not-an-address", "options": {"quickMode": True}},
                    headers={"X-API-Key": secret, "Connection": "close"},
                    timeout=30,
                ).status_code
            )
    return answers


def refused_everywhere_within_a_second(base: str, secret: str, changed_at: float) -> list[int]:
    """Poll until a whole round is refused or the second is up; the last round's answers."""
    while True:
        answers = statuses(base, secret)
        if set(answers) == {401} or time.monotonic() - changed_at > WITHIN_SECONDS:
            return answers


def warmed_key(base: str, owner: Persona) -> Persona:
    """A second key that every worker has just served (and so holds in memory)."""
    key = add_key(owner.account_id, "Worker test", ("*:*",))
    assert set(statuses(base, key.secret)) == {200}
    return key


def test_a_revoked_key_is_refused_by_every_worker_within_a_second(served: str) -> None:
    owner = open_persona()
    key = warmed_key(served, owner)

    revoked = requests.delete(f"{served}/api/keys/{key.key_id}", headers=owner.headers, timeout=30)
    changed_at = time.monotonic()

    assert revoked.status_code == 200, revoked.text
    assert set(refused_everywhere_within_a_second(served, key.secret, changed_at)) == {401}


def test_a_rotated_secret_is_refused_by_every_worker_within_a_second_and_the_new_one_works(
    served: str,
) -> None:
    owner = open_persona()
    key = warmed_key(served, owner)

    refreshed = requests.post(f"{served}/api/keys/{key.key_id}/refresh", headers=owner.headers, timeout=30)
    changed_at = time.monotonic()

    assert refreshed.status_code == 200, refreshed.text
    assert set(refused_everywhere_within_a_second(served, key.secret, changed_at)) == {401}
    assert set(statuses(served, refreshed.json()["key"]["secretKey"])) == {200}
