"""What the prober costs the servers it talks to: sessions, limits, deadlines, and never DATA."""

from __future__ import annotations

import json
import threading

from maillab import MailLab
from maillab.model import Behaviour, SmtpServerSpec, World
from maillab.world import BENCH_MAILBOXES, bench_domain, bench_world, mail_domain
from verifier.config import EngineConfig
from verifier.dns import MailDomain, MailResolver
from verifier.smtp import (
    DomainProbeResult,
    LocalSessionLimiter,
    ProbeOutcome,
    SmtpVerdict,
    probe_domain_group,
)

ALLOWED_VERBS = {"EHLO", "HELO", "STARTTLS", "MAIL", "RCPT", "QUIT"}


def test_100_addresses_over_10_domains_open_10_sessions(probe, lab):
    results = [probe(bench_domain(i), *(f"user{j:02d}" for j in range(10))) for i in range(10)]
    assert sum(result.sessions_opened for result in results) == 10
    assert (
        sum(server.sessions_opened for name, server in lab.servers.items() if name.startswith("bench")) == 10
    )
    assert all(item.verdict is SmtpVerdict.DELIVERABLE for result in results for item in result.results)
    assert all(result.catch_all is False for result in results)  # probed on the same session


def test_max_recipients_per_session_opens_new_sessions(probe, lab):
    result = probe(bench_domain(0), *(f"user{j:02d}" for j in range(10)), smtp_max_rcpt_per_session=4)
    assert result.sessions_opened == 3
    rcpts = [sum(c.startswith("RCPT") for c in session) for session in lab.servers["bench0"].transcripts()]
    assert rcpts == [4, 4, 3]  # four real recipients per session; the catch-all probe rides on the last


def test_catch_all_probe_rides_on_a_session_full_by_our_own_limit(probe, lab):
    result = probe(bench_domain(1), *(f"user{j:02d}" for j in range(4)), smtp_max_rcpt_per_session=4)
    assert result.catch_all is False
    assert result.sessions_opened == lab.servers["bench1"].sessions_opened == 1


def test_a_session_greets_as_the_helo_host_sends_the_configured_sender_and_ends_with_quit(probe, lab):
    probe(
        "mailbox.test",
        "alice",
        "bob",
        check_catch_all=False,
        smtp_helo_host="probe.example.net",
        smtp_mail_from="check@example.net",
    )
    assert lab.servers["mailbox"].transcripts() == [
        [
            "ehlo probe.example.net",  # smtplib spells the verb in lower case; servers must not care
            "MAIL FROM:<check@example.net>",
            "RCPT TO:<alice@mailbox.test>",
            "RCPT TO:<bob@mailbox.test>",
            "QUIT",
        ]
    ]


def test_the_prober_never_sends_data_or_anything_beyond_rcpt(probe, lab):
    for domain in ("mailbox.test", "tls.test", "helo-only.test", "utf8.test", "outlook.test", "m365.test"):
        probe(domain, "alice", "zed")
    verbs = {verb for server in lab.servers.values() for verb in server.verbs()}
    assert "DATA" not in verbs
    assert verbs <= ALLOWED_VERBS


def test_a_held_limiter_slot_keeps_the_prober_off_the_host(probe, lab):
    limiter = LocalSessionLimiter(per_host=1)
    lease = limiter.acquire("127.0.0.11", timeout=0)
    assert lease is not None
    blocked = probe("mailbox.test", "alice", limiter=limiter, smtp_deadline=0.3)
    assert blocked["alice@mailbox.test"].reason == "session_limit"
    assert lab.servers["mailbox"].sessions_opened == 0
    limiter.release("127.0.0.11", lease)
    assert (
        probe("mailbox.test", "alice", limiter=limiter)["alice@mailbox.test"].verdict
        is SmtpVerdict.DELIVERABLE
    )
    assert limiter.active("127.0.0.11") == 0


def test_mx_names_on_one_ip_share_its_limit(probe, lab):
    # mx.mailbox.test, mx.duck.com and mx2.backup.test are three names of the server on 127.0.0.11
    limiter = LocalSessionLimiter(per_host=1)
    lease = limiter.acquire("127.0.0.11", timeout=0)
    assert lease is not None
    for domain in ("duck.com", "backup.test", "mailbox.test"):
        result = probe(domain, "alice", limiter=limiter, smtp_deadline=0.3)
        assert result[f"alice@{domain}"].reason == "session_limit", domain
    assert lab.servers["mailbox"].sessions_opened == 0
    limiter.release("127.0.0.11", lease)
    assert probe("duck.com", "alice", limiter=limiter)["alice@duck.com"].verdict is SmtpVerdict.DELIVERABLE


def probe_concurrently(domains: list[MailDomain], config: EngineConfig, limiter: LocalSessionLimiter) -> None:
    """Six one-address probes at once, spread over ``domains``, sharing ``limiter``."""

    def one(i: int) -> None:
        domain = domains[i % len(domains)]
        probe_domain_group(domain, [f"user{i:02d}@{domain.domain}"], config=config, limiter=limiter)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_concurrent_probes_of_two_mx_names_on_one_ip_never_exceed_its_limit():
    limiter = LocalSessionLimiter(per_host=1)
    server = SmtpServerSpec("shared", "127.0.0.101", Behaviour(BENCH_MAILBOXES))
    names = ("one.test", "two.test")
    domains = tuple(spec for name in names for spec in mail_domain(name, server.ip))
    with MailLab(World(domains, (server,)), latency=0.02) as lab:
        config = lab.engine_config()
        resolved = [MailResolver(config).resolve(name) for name in names]
        assert {domain.mx_hosts[0] for domain in resolved} == {"mx.one.test", "mx.two.test"}
        probe_concurrently(resolved, config, limiter)
        assert lab.servers["shared"].sessions_opened == 6
        assert lab.servers["shared"].peak_concurrent_sessions == 1
    assert limiter.active(server.ip) == 0


def test_limiter_caps_concurrent_sessions_per_mx_host():
    limiter = LocalSessionLimiter(per_host=2)
    with MailLab(bench_world(1, servers=1), latency=0.02) as lab:
        config = lab.engine_config()
        probe_concurrently([MailResolver(config).resolve(bench_domain(0))], config, limiter)
        server = lab.servers["bench0"]
        assert server.sessions_opened == 6
        assert server.peak_concurrent_sessions <= 2
    assert limiter.active("127.0.0.101") == 0


def test_each_command_is_bounded_by_the_command_timeout(probe):
    # the slow server answers every command after 1.5 s; its banner is waited for, EHLO is not
    result = probe("slow.test", "alice", smtp_banner_timeout=5, smtp_timeout=0.3)
    assert result["alice@slow.test"].reason == "timeout"
    assert result["alice@slow.test"].evidence.command.startswith("EHLO")


def test_the_overall_deadline_bounds_the_whole_group(probe):
    result = probe("slow.test", "alice", "bob", smtp_banner_timeout=30, smtp_timeout=30, smtp_deadline=0.5)
    assert {item.outcome for item in result.results} == {ProbeOutcome.NO_ANSWER}
    assert result.catch_all is None


def test_results_survive_json_for_the_task_queue(probe):
    result = probe("mailbox.test", "alice", "zed")
    assert DomainProbeResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
