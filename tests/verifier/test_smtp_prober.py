"""The SMTP prober against every scripted behaviour of the mail lab (real sockets, real replies)."""

from __future__ import annotations

import time

import pytest

from verifier.smtp import DomainProbeResult, ProbeOutcome, SmtpVerdict


def verdicts(result: DomainProbeResult) -> dict[str, SmtpVerdict]:
    return {item.address.partition("@")[0]: item.verdict for item in result.results}


def test_existing_mailbox_is_deliverable_and_unknown_one_undeliverable(probe):
    result = probe("mailbox.test", "alice", "zed")
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "zed": SmtpVerdict.UNDELIVERABLE}
    assert result["zed@mailbox.test"].smtp_response.startswith(
        "550 5.1.1 <zed@mailbox.test>: Recipient address"
    )


def test_evidence_names_the_mx_host_ip_command_and_codes(probe):
    evidence = probe("mailbox.test", "zed")["zed@mailbox.test"].evidence
    assert (evidence.mx_host, evidence.ip, evidence.command) == (
        "mx.mailbox.test",
        "127.0.0.11",
        "RCPT TO:<zed@mailbox.test>",
    )
    assert (evidence.code, evidence.enhanced_code, evidence.tls) == (550, "5.1.1", False)
    assert evidence.text.startswith("<zed@mailbox.test>: Recipient address rejected: User unknown")
    assert evidence.latency_ms >= 0


def test_full_mailboxes_are_full_not_invalid(probe):
    result = probe("full.test", "full", "quota")
    assert verdicts(result) == {"full": SmtpVerdict.FULL, "quota": SmtpVerdict.FULL}


def test_disabled_mailbox_is_disabled(probe):
    assert probe("disabled.test", "gone")["gone@disabled.test"].verdict is SmtpVerdict.DISABLED


def test_suspended_and_unknown_accounts_under_5_7_x_are_gone_not_blocked(probe, lab):
    result = probe("accounts.test", "alice", "suspended", "locked", "closed", "deactivated", "nosuch")
    assert verdicts(result) == {
        "alice": SmtpVerdict.DELIVERABLE,
        "suspended": SmtpVerdict.DISABLED,
        "locked": SmtpVerdict.DISABLED,
        "closed": SmtpVerdict.DISABLED,
        "deactivated": SmtpVerdict.DISABLED,
        "nosuch": SmtpVerdict.UNDELIVERABLE,
    }
    assert not any(item.prober_blocked or item.retryable for item in result.results)
    closed = result["closed@accounts.test"].evidence
    assert (closed.code, closed.enhanced_code) == (550, "5.2.1")
    assert closed.text.startswith("The email account that you tried to reach is disabled. Learn more at")
    assert result["suspended@accounts.test"].smtp_response == "550 5.7.1 This account has been suspended"
    assert result.catch_all is False  # nosuch was refused as unknown: the server checks mailboxes
    assert lab.servers["accounts"].sessions_opened == 1


@pytest.mark.parametrize("domain", ["banned-ip.test", "policy.test", "spamhaus.test"])
def test_policy_refusals_under_5_7_x_stay_prober_blocked(probe, domain):
    item = probe(domain, "alice")[f"alice@{domain}"]
    assert (item.verdict, item.reason, item.prober_blocked) == (SmtpVerdict.UNKNOWN, "prober_blocked", True)


def test_greylisting_is_unknown_and_retryable_then_passes_when_retried_later(probe, lab):
    first = probe("greylist.test", "alice")["alice@greylist.test"]
    assert (first.verdict, first.reason, first.retryable, first.retry_after) == (
        SmtpVerdict.UNKNOWN,
        "greylisted",
        True,
        300,
    )
    time.sleep(1.1)  # the lab's greylisting delay is one second
    assert probe("greylist.test", "alice")["alice@greylist.test"].verdict is SmtpVerdict.DELIVERABLE


def test_catch_all_domain_is_reported_catch_all(probe):
    result = probe("catchall.test", "anyone")
    assert result.catch_all is True
    assert result.catch_all_probe.outcome is ProbeOutcome.ACCEPTED


def test_domain_that_checks_mailboxes_is_not_catch_all(probe):
    result = probe("mailbox.test", "alice")
    assert result.catch_all is False
    assert result.catch_all_probe.verdict is SmtpVerdict.UNDELIVERABLE


def test_a_rejected_real_address_proves_no_catch_all_without_reading_the_random_reply(probe, lab):
    result = probe("mailbox.test", "alice", "zed")
    assert result.catch_all is False
    assert result.catch_all_probe is None  # sent ahead with them, and not read as the probe
    assert lab.servers["mailbox"].verbs().count("RCPT") == 3


def test_a_group_too_big_for_one_write_sends_no_random_probe_once_a_refusal_proved_it(probe, lab):
    locals_ = [f"user{i}" for i in range(8)] + ["zed"]  # nine: a session's refusal budget, one write
    result = probe("mailbox.test", *locals_)
    assert result.catch_all is False
    assert result.catch_all_probe is None
    assert lab.servers["mailbox"].verbs().count("RCPT") == 9


def test_inconclusive_catch_all_probe_leaves_catch_all_unknown_never_true(probe):
    result = probe("inconclusive.test", "alice")
    assert result["alice@inconclusive.test"].verdict is SmtpVerdict.DELIVERABLE
    assert result.catch_all is None


def test_skip_catch_all_sends_no_random_recipient(probe, lab):
    result = probe("mailbox.test", "alice", check_catch_all=False)
    assert result.catch_all is None
    assert lab.servers["mailbox"].verbs().count("RCPT") == 1


@pytest.mark.parametrize("domain", ["spamhaus.test", "proofpoint.test", "reverse-hostname.test"])
def test_policy_blocks_are_unknown_with_prober_blocked_never_no_such_mailbox(probe, domain):
    result = probe(domain, "alice")[f"alice@{domain}"]
    assert result.verdict is SmtpVerdict.UNKNOWN
    assert result.prober_blocked


def test_tarpit_without_banner_is_unknown(probe, lab):
    result = probe("tarpit.test", "alice", smtp_banner_timeout=0.2)
    assert (result["alice@tarpit.test"].verdict, result["alice@tarpit.test"].reason) == (
        SmtpVerdict.UNKNOWN,
        "timeout",
    )
    assert result.sessions_opened == 1
    assert lab.servers["tarpit"].commands() == []


def test_421_at_connect_is_unknown_and_retryable(probe):
    result = probe("busy.test", "alice")["alice@busy.test"]
    assert (result.verdict, result.retryable) == (SmtpVerdict.UNKNOWN, True)
    assert result.smtp_response.startswith("421 4.3.2")


def test_nothing_listening_is_unknown_and_reported_unreachable(probe):
    result = probe("dead.test", "alice")
    assert result["alice@dead.test"].reason == "connection_refused"
    assert result.unreachable


def test_mx_that_never_answers_the_connection_is_unknown_by_the_connect_timeout(probe):
    result = probe("blackhole.test", "alice", smtp_connect_timeout=0.2, smtp_banner_timeout=30)
    assert (result["alice@blackhole.test"].verdict, result["alice@blackhole.test"].reason) == (
        SmtpVerdict.UNKNOWN,
        "connect_timeout",
    )
    assert result["alice@blackhole.test"].evidence.command == "CONNECT"
    assert (result.sessions_opened, result.unreachable) == (0, True)  # no TCP session was ever established


def test_next_mx_is_used_when_the_preferred_one_never_answers_the_connection(probe, lab):
    result = probe(
        "blackhole-first.test", "alice", "zed", smtp_connect_timeout=0.2, smtp_max_rcpt_per_session=1
    )
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "zed": SmtpVerdict.UNDELIVERABLE}
    connects = [item for item in result.transcript if item.command == "CONNECT" and item.code is None]
    assert [(item.mx_host, item.text) for item in connects] == [
        ("mx1.blackhole-first.test", "connect timeout")
    ]
    assert lab.servers["mailbox"].sessions_opened == result.sessions_opened


def test_next_mx_is_used_when_the_preferred_one_refuses(probe, lab):
    result = probe("backup.test", "alice")
    assert result["alice@backup.test"].verdict is SmtpVerdict.DELIVERABLE
    assert result["alice@backup.test"].evidence.mx_host == "mx2.backup.test"
    assert next((item.mx_host, item.text) for item in result.transcript if item.command == "CONNECT") == (
        "mx1.backup.test",
        "connection refused",
    )


def test_next_mx_is_used_when_the_preferred_one_never_greets(probe, lab):
    result = probe("tarpit-first.test", "alice", "bob", smtp_banner_timeout=0.2, smtp_max_rcpt_per_session=1)
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "bob": SmtpVerdict.DELIVERABLE}
    assert (
        lab.servers["tarpit"].sessions_opened == 1
    )  # tried once; the group then stays on the host that answered


def test_starttls_is_used_when_offered_and_recorded_in_evidence(probe, lab):
    result = probe("tls.test", "alice")
    assert result["alice@tls.test"].evidence.tls
    assert "STARTTLS" in lab.servers["tls"].verbs()


def test_server_requiring_tls_is_probed_under_tls(probe):
    assert probe("tls-required.test", "alice")["alice@tls-required.test"].verdict is SmtpVerdict.DELIVERABLE


def test_helo_fallback_and_530_starttls_first_is_retried_with_tls(probe, lab):
    result = probe("helo-only.test", "alice")
    assert result["alice@helo-only.test"].verdict is SmtpVerdict.DELIVERABLE
    assert result["alice@helo-only.test"].evidence.tls
    verbs = lab.servers["helo-only"].verbs()
    assert verbs[:7] == ["EHLO", "HELO", "MAIL", "STARTTLS", "EHLO", "HELO", "MAIL"]


def test_failed_tls_handshake_is_retried_in_plaintext_on_the_same_host(probe, lab):
    result = probe("tls-broken.test", "alice", "zed")
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "zed": SmtpVerdict.UNDELIVERABLE}
    assert not result["alice@tls-broken.test"].evidence.tls
    first, second, *later = lab.servers["tls-broken"].transcripts()
    assert first[-1] == "STARTTLS"
    assert "STARTTLS" not in second
    assert all("STARTTLS" not in session for session in later)  # the host stays plaintext for the group


def test_failed_tls_handshake_where_tls_is_demanded_is_unknown_never_undeliverable(probe, lab):
    result = probe("tls-broken-required.test", "alice")["alice@tls-broken-required.test"]
    assert (result.verdict, result.reason, result.prober_blocked) == (
        SmtpVerdict.UNKNOWN,
        "tls_or_auth_required",
        False,
    )
    assert result.smtp_response.startswith("530 5.7.0")
    assert lab.servers["tls-broken-required"].sessions_opened == 2  # TLS tried once, plaintext once


def test_utf8_local_part_is_sent_with_smtputf8_where_supported(probe, lab):
    assert probe("utf8.test", "jörg")["jörg@utf8.test"].verdict is SmtpVerdict.DELIVERABLE
    assert any(command.endswith(" SMTPUTF8") for command in lab.servers["utf8"].commands())


def test_utf8_local_part_is_not_sent_to_a_server_without_smtputf8(probe, lab):
    result = probe("mailbox.test", "jörg", "alice")
    assert (result["jörg@mailbox.test"].verdict, result["jörg@mailbox.test"].reason) == (
        SmtpVerdict.UNKNOWN,
        "smtputf8_unsupported",
    )
    assert all(command.isascii() for command in lab.servers["mailbox"].commands())


def test_yahoo_acceptance_is_never_deliverable_on_its_own(probe, lab):
    result = probe("yahoo.test", "alice")
    assert (result["alice@yahoo.test"].verdict, result["alice@yahoo.test"].reason) == (
        SmtpVerdict.UNKNOWN,
        "provider_accepts_all",
    )
    assert result.catch_all is None
    assert lab.servers["yahoo"].verbs().count("RCPT") == 1  # no pointless random probe


def test_outlook_gets_one_recipient_per_connection(probe, lab):
    result = probe("outlook.test", "alice", "bob")
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "bob": SmtpVerdict.DELIVERABLE}
    transcripts = lab.servers["outlook"].transcripts()
    assert [
        session.count("RCPT TO:<alice@outlook.test>") + session.count("RCPT TO:<bob@outlook.test>")
        for session in transcripts
    ][:2] == [1, 1]
    assert all(sum(command.startswith("RCPT") for command in session) == 1 for session in transcripts)
    assert result.sessions_opened == 3  # two addresses, and the catch-all probe on its own connection


def test_microsoft_365_access_denied_is_undeliverable(probe):
    result = probe("m365.test", "alice", "zed")
    assert verdicts(result) == {"alice": SmtpVerdict.DELIVERABLE, "zed": SmtpVerdict.UNDELIVERABLE}


def test_microsoft_365_catch_all_probe_runs_on_its_own_connection(probe, lab):
    result = probe("m365.test", "alice")
    assert result.catch_all is False
    assert [sum(command.startswith("RCPT") for command in s) for s in lab.servers["m365"].transcripts()] == [
        1,
        1,
    ]


def test_too_many_recipients_moves_the_rest_to_a_new_session(probe, lab):
    result = probe("too-many.test", "alice", "bob", "carol", "dave", "zed")
    assert verdicts(result) == {
        "alice": SmtpVerdict.DELIVERABLE,
        "bob": SmtpVerdict.DELIVERABLE,
        "carol": SmtpVerdict.DELIVERABLE,
        "dave": SmtpVerdict.DELIVERABLE,
        "zed": SmtpVerdict.UNDELIVERABLE,
    }
    assert result.sessions_opened == lab.servers["too-many"].sessions_opened == 3


def test_domains_that_accept_no_mail_are_not_contacted(probe, lab):
    for domain in ("nullmx.test", "servfail.test", "no-such-domain.test"):
        result = probe(domain, "alice")
        assert result.sessions_opened == 0
        assert result.results[0].outcome is ProbeOutcome.NOT_SENT


def test_implicit_mx_and_idn_domains_are_probed(probe):
    assert probe("implicit.test", "alice")["alice@implicit.test"].verdict is SmtpVerdict.DELIVERABLE
    assert probe("xn--mnchen-3ya.test", "bob")["bob@xn--mnchen-3ya.test"].verdict is SmtpVerdict.DELIVERABLE
