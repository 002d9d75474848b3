"""The service probes over the egresses of ``SMTP_EGRESS``: set to a SOCKS5 proxy, every session of a real
worker goes through it, the proxy's HELO name with it."""

from __future__ import annotations

import os
from typing import Any

from maillab import MailLab
from maillab.world import BLOCKED_SOURCE
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
    assert blocked["status"] == "unknown"  # never invalid; the service does not route around blocks yet
    assert f"Client host [{BLOCKED_SOURCE}] blocked" in blocked["metadata"]["smtpResponse"]
    assert "ehlo proxied.verimail.test" in lab.servers["mailbox"].commands()
