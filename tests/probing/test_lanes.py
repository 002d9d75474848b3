"""Lanes under load: batches and bulk lists of several accounts share SMTP sessions per MX address, every
address still ends with exactly one result, and a small batch is not held up behind another account's
big list. Real worker, real HTTP, the mail lab."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from maillab import MailLab
from maillab.world import PROVIDER_DOMAINS
from tests.fixtures.db import Persona, open_persona
from tests.probing.jobs_io import rows_per_job, submit_batch, submit_list
from tests.workers.harness import Api, Worker, poll_until_finished

BENCH = [f"bench-{i:03d}.test" for i in range(10)]  # two domains per lab server (bench0-bench4)


def _addresses(prefix: str, count: int, offset: int = 0) -> list[str]:
    """``count`` addresses over the bench domains; user00-49 exist, the ``prefix`` ones (1 in 20) do not."""
    return [
        f"user{(i + offset) % 50:02d}@{BENCH[i % 10]}" if i % 20 else f"{prefix}{i}@{BENCH[i % 10]}"
        for i in range(count)
    ]


def test_concurrent_batches_and_lists_of_three_accounts_each_get_exactly_one_result_per_address(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    accounts = [open_persona() for _ in range(3)]
    lists = [
        submit_list(live_api, persona, _addresses(f"bulk{n}x", 300, n)) for n, persona in enumerate(accounts)
    ]
    work = [
        (persona, _addresses(f"b{n}x", 40, 7 * n + k)) for k in range(3) for n, persona in enumerate(accounts)
    ]

    with ThreadPoolExecutor(len(work)) as pool:
        batches = list(pool.map(lambda item: submit_batch(live_api, *item), work))

    for persona, body in zip([p for p, _ in work], batches, strict=True):
        done = poll_until_finished(live_api, persona, f"/batches/{body['batchId']}/results?limit=1000", 60)
        assert done["status"] == "completed"
        assert len(done["results"]) == 40
        assert all(r["checks"]["smtp"]["passed"] == r["email"].startswith("user") for r in done["results"])
    for persona, job_id in zip(accounts, lists, strict=True):
        assert poll_until_finished(live_api, persona, f"/bulk/jobs/{job_id}", 90)["status"] == "completed"
    ids = [body["batchId"] for body in batches] + lists
    counts = rows_per_job(ids)
    assert set(counts) == set(ids)
    for total, processed, done_items, with_result in counts.values():
        assert total == processed == done_items == with_result  # one result each, none counted twice
    # 9 batches and 3 lists make 120 domain groups over 10 domains (126 addresses each, more than the 100
    # recipients of one session): a few sessions per domain, where one per group would be 120
    opened = sum(lab.servers[f"bench{i}"].sessions_opened for i in range(5))
    assert opened <= 3 * len(BENCH), opened


def test_batches_to_24_domains_behind_one_mx_address_open_a_few_sessions_there_not_one_per_domain(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    """What an operator sees in the server's log: 6 batches of 3 accounts, each with two real mailboxes at
    each of 24 domains whose MX host names differ but resolve to one address, cost a handful of sessions
    there (the politeness cap allows 3 at once; the catch-all probes' 24 refusals end a few), where
    lanes and sessions per domain opened one per domain at least."""
    accounts = [open_persona() for _ in range(3)]
    work = [
        (accounts[k % 3], [f"{local}@{domain}" for domain in PROVIDER_DOMAINS for local in ("alice", "bob")])
        for k in range(6)
    ]

    with ThreadPoolExecutor(len(work)) as pool:
        batches = list(pool.map(lambda item: submit_batch(live_api, *item), work))

    for (persona, _), body in zip(work, batches, strict=True):
        done = poll_until_finished(live_api, persona, f"/batches/{body['batchId']}/results?limit=100", 60)
        assert [r["checks"]["smtp"]["passed"] for r in done["results"]] == [True] * 48
    opened = lab.servers["provider"].sessions_opened
    assert opened <= len(PROVIDER_DOMAINS) // 3, opened


def test_a_big_domain_alone_behind_its_mx_address_is_probed_on_several_sessions_at_once(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    """Three sessions' worth of one domain wake the three seats of its address: the server sees more
    than one session at a time (a lane a domain keeps to one session would show one), never more than the
    politeness cap. sluggish.test answers every command 300 ms late, so its sessions overlap."""
    server = lab.servers["sluggish"]
    server.reset()
    persona = open_persona()
    job_id = submit_list(live_api, persona, [f"many{i}@sluggish.test" for i in range(300)])

    assert poll_until_finished(live_api, persona, f"/bulk/jobs/{job_id}", 90)["status"] == "completed"
    assert 2 <= server.peak_concurrent_sessions <= 3, server.peak_concurrent_sessions


def test_a_batch_of_10_is_answered_while_another_accounts_big_list_is_still_running(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    """Bound stated: a batch of 10 sent to one lane behind another account's list of 3,000 addresses there
    answers synchronously (within ``BATCH_SYNC_WAIT_SECONDS``, 20 s here) while that list is not half done.
    sluggish.test answers every command after 300 ms, so the list alone needs about half a minute of rounds
    on the lane's three seats (9 RCPTs in flight per round trip); the batch waits for at most the first
    round in progress to end."""
    big, small = open_persona(), open_persona()
    job_id = submit_list(live_api, big, [f"big{i}@sluggish.test" for i in range(3_000)])
    give_up = time.monotonic() + 30
    while _progress(live_api, big, job_id)["processed"] < 1 and time.monotonic() < give_up:
        time.sleep(0.1)

    response = live_api.call(
        "post", "/validate/batch", small, json={"emails": [f"small{i}@sluggish.test" for i in range(10)]}
    )
    progress = _progress(live_api, big, job_id)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "completed"
    assert progress["status"] == "running", progress
    assert progress["processed"] < 1_500, progress
    requests_cancel = live_api.call("post", f"/bulk/jobs/{job_id}/cancel", big)
    assert requests_cancel.status_code == 200, requests_cancel.text


def _progress(api: Api, persona: Persona, job_id: str) -> dict[str, Any]:
    body: dict[str, Any] = api.call("get", f"/bulk/jobs/{job_id}", persona).json()
    return body
