"""Domains behind one MX address share its sessions: groups of different domains (each with an MX host
name of its own) ride one kept session, within its recipient and refusal budgets; catch-all probes stay
per domain; a server that refuses a domain in another domain's session is asked again on one of its own."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maillab import MailLab
from maillab.world import SHARED_CATCH_ALL, SHARED_ORDINARY, TENANT_DOMAINS
from tests.verifier.rounds import probe_round
from tests.verifier.rounds import verdicts as _verdicts
from verifier.config import EngineConfig
from verifier.smtp import DomainProbeResult, SmtpVerdict


@pytest.fixture(params=[False, True], ids=["one by one", "relayed"])
def relayed(request: pytest.FixtureRequest) -> bool:
    """Every case twice: the groups one by one through the keeper, and as a round with a relay (the next
    groups' RCPTs sent ahead, ``verifier/smtp/relay.py``), which must change nothing here."""
    return bool(request.param)


InTurn = Callable[..., list[DomainProbeResult]]


@pytest.fixture
def in_turn(relayed: bool) -> InTurn:
    def probe(
        config: EngineConfig, groups: list[tuple[str, list[str]]], *, check_catch_all: bool = True
    ) -> list[DomainProbeResult]:
        return probe_round(config, groups, relay=relayed, catch_all=check_catch_all)

    return probe


def test_eight_domains_behind_one_mx_address_are_probed_over_one_session(
    lab: MailLab, in_turn: InTurn
) -> None:
    groups = [(domain, ["alice", "bob"]) for domain in SHARED_ORDINARY]

    results = in_turn(lab.engine_config(), groups, check_catch_all=False)

    assert lab.servers["hosting"].sessions_opened == 1
    assert [result.sessions_opened for result in results] == [1] + [0] * 7
    assert all(_verdicts(result) == [SmtpVerdict.DELIVERABLE] * 2 for result in results)
    rcpts = [line for line in lab.servers["hosting"].transcripts()[0] if line.startswith("RCPT")]
    assert len(rcpts) == 16  # every domain's recipients in the one transaction
    assert all(item.mx_host == f"mx.{result.domain}" for result in results for item in result.transcript)


def test_catch_all_and_ordinary_domains_behind_one_address_keep_their_own_catch_all_verdicts(
    lab: MailLab, in_turn: InTurn
) -> None:
    order = [SHARED_ORDINARY[0], SHARED_CATCH_ALL[0], SHARED_ORDINARY[1], SHARED_CATCH_ALL[1]]

    results = in_turn(lab.engine_config(), [(domain, ["alice"]) for domain in order])

    assert [result.catch_all for result in results] == [False, True, False, True]
    assert lab.servers["hosting"].sessions_opened == 1


def test_a_session_shared_by_domains_stays_within_the_servers_error_limit(
    lab: MailLab, in_turn: InTurn
) -> None:
    config = lab.engine_config(smtp_session_max_rejections=4)  # the lab's "hosting" drops us at the 6th
    groups = [(domain, [f"nobody{i}" for i in range(3)] + ["alice"]) for domain in SHARED_ORDINARY]

    results = in_turn(config, groups)

    assert all(_verdicts(r) == [SmtpVerdict.UNDELIVERABLE] * 3 + [SmtpVerdict.DELIVERABLE] for r in results)
    sessions = lab.servers["hosting"].transcripts()
    refused = [
        sum(line.startswith("RCPT") and "alice" not in line for line in session) for session in sessions
    ]
    assert max(refused) <= 4, refused
    assert len(sessions) < len(SHARED_ORDINARY)  # still shared: 24 refusals over 4 per session, not 8


def test_a_domain_refused_in_another_domains_session_is_asked_again_on_its_own(
    lab: MailLab, in_turn: InTurn
) -> None:
    results = in_turn(lab.engine_config(), [(domain, ["alice", "zed"]) for domain in TENANT_DOMAINS])

    for result in results:
        assert _verdicts(result) == [SmtpVerdict.DELIVERABLE, SmtpVerdict.UNDELIVERABLE], result.domain
        assert result.catch_all is False
    sessions = lab.servers["tenants"].transcripts()
    first_rcpts = [next(line for line in session if line.startswith("RCPT")) for session in sessions]
    for domain in TENANT_DOMAINS:  # each domain's verdicts came from a session it opened the transaction of
        assert any(line.endswith(f"@{domain}>") for line in first_rcpts), first_rcpts


def test_a_domain_its_shared_server_does_not_host_gets_the_answer_it_gets_alone(
    lab: MailLab, in_turn: InTurn
) -> None:
    config = lab.engine_config()
    alone = in_turn(config, [("partial-away.test", ["alice"])])[0]

    shared = in_turn(config, [("partial-home.test", ["alice"]), ("partial-away.test", ["alice"])])

    assert _verdicts(shared[0]) == [SmtpVerdict.DELIVERABLE]
    assert _verdicts(shared[1]) == _verdicts(alone)
    assert shared[1].results[0].reason == alone.results[0].reason
    assert shared[1].sessions_opened == 1  # asked again on a session of its own
