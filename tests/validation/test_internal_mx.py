"""The SMTP prober is no way into private networks, end to end through the API: an MX on a non-public
address is never connected to, its answer says why and carries nothing of that host; and the fleet-wide
session limit counts per MX address, whatever names point there."""

from __future__ import annotations

from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet.policy import Politeness
from tests.fixtures.db import Persona
from tests.workers.harness import Api, Worker


def test_an_mx_on_a_non_public_address_gets_smtp_unknown_saying_so_and_nothing_of_the_host(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    response = live_api.call("post", "/validate", owner, json={"email": "alice@unspecified.test"})
    assert response.status_code == 200, response.text
    smtp = response.json()["checks"]["smtp"]
    assert smtp["metadata"]["reason"] == "mx_not_public"
    assert smtp["metadata"].get("smtpResponse") in (None, "", "mx_not_public")  # no banner, no reply
    assert "0.0.0.0" not in response.text
    assert "refused" not in response.text.lower()


def test_an_mx_on_a_non_public_address_is_skipped_for_the_next_public_one(
    live_api: Api, worker: Worker, owner: Persona
) -> None:
    response = live_api.call("post", "/validate", owner, json={"email": "alice@unspecified-first.test"})
    assert response.status_code == 200, response.text
    assert response.json()["checks"]["smtp"]["metadata"].get("reason") != "mx_not_public"


def test_the_fleet_session_limit_is_shared_by_every_name_of_one_mx_address(job_env: dict[str, str]) -> None:
    limiter = RedisSessionLimiter(Politeness(1, 30, 0, 30, 600, 5))
    first = limiter.acquire("192.0.2.11", timeout=0.1)
    assert first is not None
    try:
        assert limiter.acquire("192.0.2.11", timeout=0.2) is None  # mx1.backup.test and mailbox.test alike
        other = limiter.acquire("192.0.2.12", timeout=0.1)
        assert other is not None
        limiter.release("192.0.2.12", other)
    finally:
        limiter.release("192.0.2.11", first)
