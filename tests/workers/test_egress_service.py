"""The service probes over the egresses of ``SMTP_EGRESS``: set to a SOCKS5 proxy, every session of a real
worker goes through it, the proxy's HELO name with it; with two source addresses, one blocked by a server,
its addresses are answered over the other."""

from __future__ import annotations

import os
from typing import Any

from maillab import MailLab
from maillab.world import BLOCKED_SOURCE, CLEAN_SOURCE
from services.probing.fleet.policy import place
from services.redis_client import get_redis, key
from tests.fixtures.db import Persona
from tests.fixtures.socks import StartProxy
from tests.workers.harness import Api, Worker, start_worker, wait_for

EMAILS = ["alice@mailbox.test", "zed@mailbox.test", "alice@blocklist.test"]


def test_a_worker_given_a_socks5_egress_probes_through_the_proxy(
    live_api: Api,
    beat: Worker,
    job_env: dict[str, str],
    owner: Persona,
    lab: MailLab,
    socks_proxy: StartProxy,
) -> None:
    # The proxy leaves from the block-listed address: only a session through it is refused by blocklist.test.
    proxy = socks_proxy(external=BLOCKED_SOURCE)
    egress = proxy.url(options="?helo=proxied.verimail.test")
    worker = start_worker({**job_env, "SMTP_EGRESS": egress}, f"egress{os.getpid()}")
    try:
        accepted = live_api.call(
            "post", "/validate/batch", owner, json={"emails": EMAILS}, headers={"Prefer": "respond-async"}
        ).json()
        body = wait_for(live_api, owner, accepted["batchId"], timeout=90)
    finally:
        worker.stop()

    assert body["status"] == "completed"
    results: dict[str, Any] = {result["email"]: result for result in body["results"]}
    assert results["alice@mailbox.test"]["severity"] == "valid"
    assert results["zed@mailbox.test"]["severity"] == "invalid"
    blocked = results["alice@blocklist.test"]["checks"]["smtp"]
    assert blocked["status"] == "unknown"  # never invalid; with one egress there is no other to ask
    assert f"Client host [{BLOCKED_SOURCE}] blocked" in blocked["metadata"]["smtpResponse"]
    assert "ehlo proxied.verimail.test" in lab.servers["mailbox"].commands()


def test_batches_in_flight_while_one_egress_is_blocked_get_one_right_result_per_address(
    live_api: Api, beat: Worker, job_env: dict[str, str], owner: Persona, lab: MailLab
) -> None:
    """Two source addresses, the block-list server refusing the first: three batches at once, each
    address answered once, with its mailbox's verdict, never invalid because of the block."""
    forget_blocks(CLEAN_SOURCE, BLOCKED_SOURCE)
    egress = f"direct://{BLOCKED_SOURCE}, direct://{CLEAN_SOURCE}"
    worker = start_worker({**job_env, "SMTP_EGRESS": egress}, f"egress2{os.getpid()}")
    lists = [
        [f"{local}@blocklist.test" for local in ("alice", "bob", "zed", "nobody")],
        [f"{local}@blocklist.test" for local in ("carol", "dave", "yann")] + ["alice@mailbox.test"],
        [f"{local}@blocklist.test" for local in ("erin", "alice", "xavier")],
    ]
    try:
        accepted = [
            live_api.call(
                "post", "/validate/batch", owner, json={"emails": emails}, headers={"Prefer": "respond-async"}
            ).json()
            for emails in lists
        ]
        bodies = [wait_for(live_api, owner, answer["batchId"], timeout=90) for answer in accepted]
    finally:
        worker.stop()

    for emails, body in zip(lists, bodies, strict=True):
        assert body["status"] == "completed"
        assert sorted(result["email"] for result in body["results"]) == sorted(emails)  # once each
        for result in body["results"]:
            local = result["email"].split("@")[0]
            expected = "valid" if local in ("alice", "bob", "carol", "dave", "erin") else "invalid"
            assert result["severity"] == expected, result


def forget_blocks(*sources: str) -> None:
    """Blocks (and counters) an earlier test of the run left at the block-list server, per source."""
    redis = get_redis()
    for source in sources:
        egress = f"direct://{source}"
        where = place(egress, "127.0.0.45")
        redis.delete(
            *(key(name, where) for name in ("egress-blocked", "egress-blocked-level", "smtp-backoff"))
        )
        redis.delete(*(key(name, egress) for name in ("egress-stats", "egress-blocks", "egress-blocked-by")))
