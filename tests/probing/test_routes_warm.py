"""A live list's domains are looked up for their lanes while its rows are parsed, so its first groups are
routed from memory when they are dispatched; a test-mode list's domains are never asked of DNS."""

from __future__ import annotations

import secrets
import time

from maillab import MailLab
from maillab.model import DomainSpec
from models.jobs import GroupState, JobGroup
from models.session import transaction
from services.jobs.options import JobOptions
from services.probing.jobs import plan
from services.probing.rounds import routes
from tests.fixtures.db import Persona
from tests.workers.rows import queued_list


def _domains(lab: MailLab, count: int) -> list[str]:
    """Names nobody asked about yet in this run, each with an MX at the lab's mailbox server."""
    names = [f"warm-{secrets.token_hex(4)}.test" for _ in range(count)]
    lab.publish(*(DomainSpec(name, mx=((10, "mx.mailbox.test"),)) for name in names))
    return names


def _stored_list(owner: Persona, emails: list[str], *, livemode: bool) -> int:
    options = JobOptions(features=("syntax", "domain", "smtp"), livemode=livemode).to_json()
    return queued_list(owner, emails, options, livemode=livemode)[1]


def _asked(lab: MailLab, domains: list[str]) -> set[str]:
    return {domain for domain in domains if any(domain in name for name in lab.dns_questions)}


def test_a_live_lists_domains_are_looked_up_while_it_is_parsed(
    job_env: dict[str, str], lab: MailLab, owner: Persona
) -> None:
    domains = _domains(lab, 12)
    job_id = _stored_list(owner, [f"user{i}@{d}" for i in range(3) for d in domains], livemode=True)

    assert plan.parse_chunk(job_id, None, live=True) == 36
    give_up = time.monotonic() + 10
    while _asked(lab, domains) != set(domains) and time.monotonic() < give_up:
        time.sleep(0.05)

    assert _asked(lab, domains) == set(domains)
    with transaction() as session:  # nothing dispatched yet: the lookups ran beside the parse
        assert session.query(JobGroup).filter(JobGroup.job_id == job_id).count() == 0
    lab.reset()
    routed = routes.mx_addresses(domains)
    assert set(routed.values()) == {lab.servers["mailbox"].spec.ip}
    assert lab.dns_questions == []  # dispatch reads the answers from memory


def test_a_test_mode_lists_domains_are_never_asked(
    job_env: dict[str, str], lab: MailLab, owner: Persona
) -> None:
    domains = _domains(lab, 4)
    job_id = _stored_list(owner, [f"deliverable@{d}" for d in domains], livemode=False)

    plan.plan_patiently(job_id)  # as the worker plans it: the job's own options say test mode
    time.sleep(0.5)  # a lookup started anyway would be asked within this

    assert _asked(lab, domains) == set()
    with transaction() as session:
        states = session.query(JobGroup.state).filter(JobGroup.job_id == job_id).all()
    assert states  # planned and dispatched to test lanes, which answer without DNS
    assert all(state in (GroupState.QUEUED.value, GroupState.PENDING.value) for (state,) in states)
