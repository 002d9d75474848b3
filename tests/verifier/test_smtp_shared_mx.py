"""Domains behind one MX address share its sessions: groups of different domains (each with an MX host
name of its own) ride one kept session, within its recipient and refusal budgets; catch-all probes stay
per domain; a server that refuses a domain in another domain's session is asked again on one of its own."""

from __future__ import annotations

from maillab import MailLab
from maillab.world import SHARED_CATCH_ALL, SHARED_ORDINARY, TENANT_DOMAINS
from verifier.config import EngineConfig
from verifier.dns import MailResolver
from verifier.smtp import (
    DomainProbeResult,
    LocalSessionLimiter,
    SessionKeeper,
    SmtpVerdict,
    probe_domain_group,
)


def _probe_in_turn(
    config: EngineConfig, groups: list[tuple[str, list[str]]], *, check_catch_all: bool = True
) -> list[DomainProbeResult]:
    """Each ``(domain, local parts)`` group probed in turn with one keeper, as a lane's round does."""
    keeper, limiter = SessionKeeper(idle_seconds=5.0), LocalSessionLimiter(3)
    resolver = MailResolver(config)
    results = []
    for domain, locals_ in groups:
        addresses = [f"{local}@{domain}" for local in locals_]
        results.append(
            probe_domain_group(
                resolver.resolve(domain),
                addresses,
                config=config,
                limiter=limiter,
                keeper=keeper,
                check_catch_all=check_catch_all,
            )
        )
    keeper.close_idle(everything=True)
    return results


def _verdicts(result: DomainProbeResult) -> list[SmtpVerdict]:
    return [item.verdict for item in result.results]


def test_eight_domains_behind_one_mx_address_are_probed_over_one_session(lab: MailLab) -> None:
    groups = [(domain, ["alice", "bob"]) for domain in SHARED_ORDINARY]

    results = _probe_in_turn(lab.engine_config(), groups, check_catch_all=False)

    assert lab.servers["hosting"].sessions_opened == 1
    assert [result.sessions_opened for result in results] == [1] + [0] * 7
    assert all(_verdicts(result) == [SmtpVerdict.DELIVERABLE] * 2 for result in results)
    rcpts = [line for line in lab.servers["hosting"].transcripts()[0] if line.startswith("RCPT")]
    assert len(rcpts) == 16  # every domain's recipients in the one transaction
    assert all(item.mx_host == f"mx.{result.domain}" for result in results for item in result.transcript)


def test_catch_all_and_ordinary_domains_behind_one_address_keep_their_own_catch_all_verdicts(
    lab: MailLab,
) -> None:
    order = [SHARED_ORDINARY[0], SHARED_CATCH_ALL[0], SHARED_ORDINARY[1], SHARED_CATCH_ALL[1]]

    results = _probe_in_turn(lab.engine_config(), [(domain, ["alice"]) for domain in order])

    assert [result.catch_all for result in results] == [False, True, False, True]
    assert lab.servers["hosting"].sessions_opened == 1


def test_a_session_shared_by_domains_stays_within_the_servers_error_limit(lab: MailLab) -> None:
    config = lab.engine_config(smtp_session_max_rejections=4)  # the lab's "hosting" drops us at the 6th
    groups = [(domain, [f"nobody{i}" for i in range(3)] + ["alice"]) for domain in SHARED_ORDINARY]

    results = _probe_in_turn(config, groups)

    assert all(_verdicts(r) == [SmtpVerdict.UNDELIVERABLE] * 3 + [SmtpVerdict.DELIVERABLE] for r in results)
    sessions = lab.servers["hosting"].transcripts()
    refused = [
        sum(line.startswith("RCPT") and "alice" not in line for line in session) for session in sessions
    ]
    assert max(refused) <= 4, refused
    assert len(sessions) < len(SHARED_ORDINARY)  # still shared: 24 refusals over 4 per session, not 8


def test_a_domain_refused_in_another_domains_session_is_asked_again_on_its_own(lab: MailLab) -> None:
    results = _probe_in_turn(lab.engine_config(), [(domain, ["alice", "zed"]) for domain in TENANT_DOMAINS])

    for result in results:
        assert _verdicts(result) == [SmtpVerdict.DELIVERABLE, SmtpVerdict.UNDELIVERABLE], result.domain
        assert result.catch_all is False
    sessions = lab.servers["tenants"].transcripts()
    first_rcpts = [next(line for line in session if line.startswith("RCPT")) for session in sessions]
    for domain in TENANT_DOMAINS:  # each domain's verdicts came from a session it opened the transaction of
        assert any(line.endswith(f"@{domain}>") for line in first_rcpts), first_rcpts


def test_a_domain_its_shared_server_does_not_host_gets_the_answer_it_gets_alone(lab: MailLab) -> None:
    config = lab.engine_config()
    alone = _probe_in_turn(config, [("partial-away.test", ["alice"])])[0]

    shared = _probe_in_turn(config, [("partial-home.test", ["alice"]), ("partial-away.test", ["alice"])])

    assert _verdicts(shared[0]) == [SmtpVerdict.DELIVERABLE]
    assert _verdicts(shared[1]) == _verdicts(alone)
    assert shared[1].results[0].reason == alone.results[0].reason
    assert shared[1].sessions_opened == 1  # asked again on a session of its own
