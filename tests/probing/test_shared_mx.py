"""Many domains behind one MX address, through the whole service: single validations, batches and bulk
lists of several accounts share the server's sessions, every address still ends with exactly one result
and its own verdict, catch-all verdicts stay per domain, a tenant gateway's "relay access denied" in
another domain's session is no verdict, and a server with low error limits never sees them crossed. Real
worker, real HTTP, the lab."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from maillab import MailLab
from maillab.world import MAILBOXES, SHARED_CATCH_ALL, SHARED_ORDINARY, TENANT_DOMAINS
from tests.fixtures.db import Persona, open_persona
from tests.probing.jobs_io import rows_per_job, submit_batch, submit_list
from tests.processes import start_worker
from tests.workers.harness import Api, Worker, poll_until_finished

# A session may collect 4 refusals; the lab's "hosting" server drops a client at its 6th.
BUDGET_ENV = {"SMTP_SESSION_MAX_REJECTIONS": "4"}
DOMAINS = SHARED_ORDINARY + SHARED_CATCH_ALL + TENANT_DOMAINS
LOCALS = sorted(MAILBOXES)


@pytest.fixture(scope="module")
def worker(job_env: dict[str, str], beat: Worker) -> Iterator[Worker]:
    started = start_worker(job_env | BUDGET_ENV, f"sharedmx{os.getpid()}")
    yield started
    started.stop()


def _addresses(prefix: str, count: int, offset: int) -> list[str]:
    """``count`` addresses over the shared domains; 1 in 8 is a mailbox no server has."""
    return [
        f"{prefix}{i}@{DOMAINS[(i + offset) % len(DOMAINS)]}"
        if i % 8 == 0
        else f"{LOCALS[i % len(LOCALS)]}@{DOMAINS[(i + offset) % len(DOMAINS)]}"
        for i in range(count)
    ]


def _assert_verdicts(results: list[dict[str, Any]]) -> None:
    """Real mailboxes pass, others fail (catch-all domains take both); catch-all said of those only."""
    for result in results:
        local, _, domain = result["email"].partition("@")
        catch_all = domain in SHARED_CATCH_ALL
        assert result["checks"]["smtp"]["passed"] is (catch_all or local in MAILBOXES), result
        assert result["checks"]["catchAll"]["metadata"]["isCatchAll"] is catch_all, result


def _results(api: Api, persona: Persona, path: str) -> list[dict[str, Any]]:
    done = poll_until_finished(api, persona, path, 90)
    assert done["status"] == "completed", done
    results: list[dict[str, Any]] = done["results"]
    return results


def test_batches_and_lists_of_three_accounts_over_shared_mx_addresses_get_one_right_result_each(
    live_api: Api, worker: Worker, lab: MailLab
) -> None:
    accounts = [open_persona() for _ in range(3)]
    lists = [submit_list(live_api, p, _addresses(f"bulk{n}x", 150, n)) for n, p in enumerate(accounts)]
    work = [(p, _addresses(f"b{n}x", 30, 5 * n + k)) for k in range(3) for n, p in enumerate(accounts)]
    singles = [(p, email) for n, p in enumerate(accounts) for email in _addresses(f"s{n}x", 4, 3 * n)]

    with ThreadPoolExecutor(len(work) + len(singles)) as pool:
        answers = pool.map(lambda item: _validate_one(live_api, *item), singles)
        batches = list(pool.map(lambda item: submit_batch(live_api, *item), work))
        single_results = list(answers)

    assert sorted(result["email"] for result in single_results) == sorted(email for _, email in singles)
    _assert_verdicts(single_results)
    for (persona, emails), body in zip(work, batches, strict=True):
        results = _results(live_api, persona, f"/batches/{body['batchId']}/results?limit=1000")
        assert sorted(r["email"] for r in results) == sorted(emails)
        _assert_verdicts(results)
    for persona, job_id in zip(accounts, lists, strict=True):
        assert poll_until_finished(live_api, persona, f"/bulk/jobs/{job_id}", 90)["status"] == "completed"
        download = live_api.call("get", f"/bulk/jobs/{job_id}/download?format=json", persona)
        _assert_verdicts(download.json())
    ids = [body["batchId"] for body in batches] + lists
    counts = rows_per_job(ids)
    assert set(counts) == set(ids)
    for total, processed, done_items, with_result in counts.values():
        assert total == processed == done_items == with_result  # one result each, none counted twice
    sessions = lab.servers["hosting"].transcripts()
    refused = [sum(line.startswith("RCPT") and _refused(line) for line in session) for session in sessions]
    assert max(refused) <= 4, refused  # the server would have dropped us at its 6th


def _validate_one(api: Api, persona: Persona, email: str) -> dict[str, Any]:
    """``POST /validate``, answered at once with the address's result (it rides the same lanes)."""
    response = api.call("post", "/validate", persona, json={"email": email})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def _refused(rcpt: str) -> bool:
    """A RCPT the "hosting" server refuses: an unknown mailbox at an ordinary domain, or a random one."""
    local, _, domain = rcpt.removeprefix("RCPT TO:<").removesuffix(">").partition("@")
    return domain not in SHARED_CATCH_ALL and local not in MAILBOXES
