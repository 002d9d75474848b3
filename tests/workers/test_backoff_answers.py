"""A backoff never holds a request: a Workspace-hosted domain answering ``421-4.7.28`` puts its MX address
in backoff, and POST /validate for its addresses is answered at once, unknown, with the reason and
``retryAfter`` the end of the backoff, through the real stack (gunicorn, a worker, Redis, the lab)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from maillab import MailLab
from services.probing.fleet.policy import place
from services.redis_client import get_redis, key
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker, start_worker
from verifier.egress import DIRECT

BACKOFF = 60  # SMTP_BACKOFF_SECONDS: shorter than SMTP_DEADLINE, so a group could have waited it out
SERVER = "127.0.0.46"


def test_four_requests_at_a_rate_limited_domain_are_answered_at_once_with_when_to_retry(
    live_api: Api, beat: Worker, job_env: dict[str, str], owner: Persona, lab: MailLab
) -> None:
    where = place(DIRECT.id, SERVER)
    get_redis().delete(key("smtp-backoff", where), key("smtp-backoff-level", where))
    env = {
        **job_env,
        "SMTP_BACKOFF_SECONDS": str(BACKOFF),
        "SMTP_DEADLINE": "90",
        "SMTP_BACKOFF_MAX_SECONDS": "600",
    }
    worker = start_worker(env, f"backoff{os.getpid()}")
    emails = [f"{local}@ratelimited.test" for local in ("alice", "bob", "carol", "dave")]

    def validate(email: str) -> tuple[int, dict[str, Any]]:
        response = live_api.call("post", "/validate", owner, json={"email": email})
        return response.status_code, response.json()

    try:
        with ThreadPoolExecutor(4) as pool:
            first = list(pool.map(validate, emails))
        with ThreadPoolExecutor(4) as pool:
            during = list(pool.map(validate, emails))
    finally:
        worker.stop()

    for status, body in first + during:
        assert status == 200, body  # never a 202 after VALIDATE_WAIT_SECONDS
        smtp = body["checks"]["smtp"]
        assert smtp["status"] == "unknown"
        assert body["severity"] != "invalid"
    for _, body in during:  # the MX address is in backoff: not asked, answered with when it ends
        metadata = body["checks"]["smtp"]["metadata"]
        assert metadata["reason"] == "backing_off", metadata
        assert 0 < metadata["retryAfter"] <= BACKOFF
    assert any("4.7.28" in str(body["checks"]["smtp"]["metadata"].get("smtpResponse")) for _, body in first)
