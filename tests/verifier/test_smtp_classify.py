"""Reading SMTP replies as real MTAs word them: evidence is classified before any verdict."""

from __future__ import annotations

import pytest

from verifier.smtp import ProbeOutcome, ReplyEvidence, classify, rules_for
from verifier.smtp.evidence import parse_reply
from verifier.smtp.providers import Provider

GENERIC = rules_for(["mx.example.com"])
M365 = rules_for(["contoso-com.mail.protection.outlook.com"])


def reply(line: str) -> ReplyEvidence:
    code, _, rest = line.partition(" ")
    enhanced, text = parse_reply(rest)
    return ReplyEvidence(
        "mx.example.com", "192.0.2.1", "RCPT TO:<a@example.com>", int(code), enhanced, text, False, 1.0
    )


@pytest.mark.parametrize(
    ("line", "outcome", "reason"),
    [
        ("250 2.1.5 Ok", ProbeOutcome.ACCEPTED, "accepted"),
        ("251 2.1.5 User not local; will forward", ProbeOutcome.ACCEPTED, "accepted"),
        (
            "550 5.1.1 The email account that you tried to reach does not exist.",
            ProbeOutcome.REJECTED_MAILBOX,
            "mailbox_rejected",
        ),
        (
            "550 5.5.0 Requested action not taken: mailbox unavailable",
            ProbeOutcome.REJECTED_MAILBOX,
            "mailbox_rejected",
        ),
        (
            "553 sorry, that domain isn't in my list of allowed rcpthosts",
            ProbeOutcome.REJECTED_MAILBOX,
            "mailbox_rejected",
        ),
        ("501 5.1.3 Bad recipient address syntax", ProbeOutcome.REJECTED_MAILBOX, "mailbox_rejected"),
        (
            "452 4.2.2 The email account that you tried to reach is over quota",
            ProbeOutcome.FULL,
            "mailbox_full",
        ),
        ("552 5.2.2 Mailbox full", ProbeOutcome.FULL, "mailbox_full"),
        (
            "530 5.7.0 Must issue a STARTTLS command first",
            ProbeOutcome.REJECTED_POLICY,
            "tls_or_auth_required",
        ),
        ("552 Requested mail action aborted: exceeded storage allocation", ProbeOutcome.FULL, "mailbox_full"),
        (
            "550 5.2.1 The email account that you tried to reach is disabled.",
            ProbeOutcome.DISABLED,
            "mailbox_disabled",
        ),
        (
            "450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted",
            ProbeOutcome.TEMPORARY,
            "greylisted",
        ),
        ("451 4.7.1 Please try again later", ProbeOutcome.TEMPORARY, "greylisted"),
        ("452 4.5.3 Too many recipients", ProbeOutcome.TEMPORARY, "too_many_recipients"),
        ("421 4.3.2 Service not available", ProbeOutcome.TEMPORARY, "temporary_failure"),
        (
            "554 5.7.1 Service unavailable; Client host [192.0.2.9] blocked using zen.spamhaus.org",
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
        ),
        (
            "550 Service unavailable; client [192.0.2.9] blocked using Spamhaus",
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
        ),
        (
            "554 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.9",
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
        ),
        (
            "550 Client host rejected: cannot find your reverse hostname, [192.0.2.9]",
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
        ),
        (
            "450 4.7.1 Client host rejected: cannot find your reverse hostname",
            ProbeOutcome.TEMPORARY,
            "prober_blocked",
        ),
        (
            "553 5.1.8 <probe@example.net>: Sender address rejected: Domain not found",
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
        ),
        ("554 Transaction failed", ProbeOutcome.REJECTED_POLICY, "prober_blocked"),
        (
            "554 delivery error: dd This user doesn't have a yahoo.com account (zed@yahoo.com) [0]",
            ProbeOutcome.REJECTED_MAILBOX,
            "mailbox_rejected",
        ),
        (
            "550 5.4.1 Recipient address rejected: Access denied",
            ProbeOutcome.REJECTED_POLICY,
            "server_refused",
        ),
    ],
)
def test_replies_are_classified_by_enhanced_code_then_wording_then_code(line, outcome, reason):
    found = classify(reply(line), GENERIC, 300, rcpt=True)
    assert (found.outcome, found.reason) == (outcome, reason)


GONE, OFF = ProbeOutcome.REJECTED_MAILBOX, ProbeOutcome.DISABLED


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        ("550 5.7.1 This account has been suspended", OFF),
        ("550 5.7.1 Recipient address rejected: account disabled", OFF),
        ("550 5.2.1 The email account that you tried to reach is disabled", OFF),
        ("550 5.7.1 <x@example.com>: Recipient address rejected: Inactive user", OFF),
        ("554 5.7.1 The recipient's mailbox is inactive", OFF),
        ("550 5.7.1 Mailbox deactivated", OFF),
        ("550 5.7.1 Suspended account, mail not accepted", OFF),
        ("550 5.1.1 Mailbox disabled for this recipient", OFF),
        ("554 delivery error: dd This account has been disabled or discontinued [#102].", OFF),
        ("550 5.7.1 No such user here", GONE),
        (
            "550 5.7.1 <x@example.com>: Recipient address rejected: User unknown in local recipient table",
            GONE,
        ),
        ("554 5.7.1 Unknown recipient", GONE),
        ("550 5.7.1 The email account that you tried to reach does not exist", GONE),
        ("550 5.4.1 Recipient address rejected: user unknown", GONE),
        ("553 5.3.0 Mailbox not found", GONE),
    ],
)
def test_a_gone_or_switched_off_account_is_read_from_the_words_whatever_the_code(line, outcome):
    found = classify(reply(line), GENERIC, 300, rcpt=True)
    assert (found.outcome, found.prober_blocked) == (outcome, False)
    assert found.reason == ("mailbox_disabled" if outcome is OFF else "mailbox_rejected")


@pytest.mark.parametrize(
    "line",
    [
        "550 5.7.1 Service unavailable; client host blocked using Spamhaus",
        "554 5.7.1 rejected: policy",
        "550 5.7.606 Access denied, banned sending IP [192.0.2.9]",
        "550 5.7.1 Recipient address rejected: Access denied",
        "550 5.7.1 Requested action not taken: mailbox unavailable",  # RFC 5321's catch-all text
        "550 5.7.1 Account suspended for abuse: blocked using zen.spamhaus.org",  # a block list named wins
        "550 5.7.1 Your account has been suspended",  # ours (a smarthost account), not the recipient's
        "554 5.7.1 <probe@example.net>: Sender address rejected: account disabled",
        "550 5.1.0 <probe@example.net>: Sender address rejected: User unknown in local recipient table",
        "550 Verification failed for <probe@example.net>: Sender verify failed",
    ],
)
def test_policy_replies_and_replies_about_us_stay_prober_blocked(line):
    found = classify(reply(line), GENERIC, 300, rcpt=True)
    assert (found.outcome, found.reason, found.prober_blocked) == (
        ProbeOutcome.REJECTED_POLICY,
        "prober_blocked",
        True,
    )


def test_a_temporary_refusal_never_says_the_account_is_gone():
    found = classify(reply("450 4.2.1 Mailbox temporarily disabled"), GENERIC, 300, rcpt=True)
    assert found.outcome is ProbeOutcome.TEMPORARY


def test_policy_blocks_carry_the_prober_blocked_flag():
    assert classify(reply("554 5.7.1 blocked using zen.spamhaus.org"), GENERIC, 300, rcpt=True).prober_blocked


def test_microsoft_365_access_denied_is_a_definitive_reject():
    found = classify(
        reply("550 5.4.1 Recipient address rejected: Access denied. AS(201806281)"), M365, 300, rcpt=True
    )
    assert found.outcome is ProbeOutcome.REJECTED_MAILBOX


def test_greylisting_honours_a_delay_named_by_the_server_else_the_default():
    named = classify(reply("451 4.7.1 Greylisted, please retry in 5 minutes"), GENERIC, 300, rcpt=True)
    unnamed = classify(
        reply("450 4.2.0 Greylisted, see http://postgrey.schweikert.ch/"), GENERIC, 120, rcpt=True
    )
    assert (named.retry_after, unnamed.retry_after) == (300, 120)


def test_a_reject_of_our_session_never_speaks_about_the_mailbox():
    found = classify(reply("550 5.1.1 User unknown"), GENERIC, 300, rcpt=False)
    assert found.outcome is ProbeOutcome.REJECTED_POLICY


def test_no_reply_is_no_answer_with_the_reason():
    silent = ReplyEvidence("mx.example.com", "192.0.2.1", "CONNECT", None, None, "timeout", False, 1000.0)
    found = classify(silent, GENERIC, 300, rcpt=True)
    assert (found.outcome, found.reason) == (ProbeOutcome.NO_ANSWER, "timeout")


@pytest.mark.parametrize(
    ("text", "reason", "retry_after"),
    [
        ("timeout", "timeout", 120),  # too slow: ask again later, like a 4xx
        ("connect timeout", "connect_timeout", 120),
        ("connection closed by server", "disconnected", 120),
        ("connection refused", "connection_refused", None),  # nothing listens: no time to come back at
    ],
)
def test_a_silence_that_means_not_now_carries_a_retry_time(text: str, reason: str, retry_after: int | None):
    silent = ReplyEvidence("mx.example.com", "192.0.2.1", "CONNECT", None, None, text, False, 1000.0)
    found = classify(silent, GENERIC, 120, rcpt=True)
    assert (found.reason, found.retry_after) == (reason, retry_after)


def test_multiline_replies_keep_one_enhanced_code_and_the_whole_text():
    enhanced, text = parse_reply(
        b"5.1.1 The email account does not exist. Please try\n5.1.1 double-checking."
    )
    assert enhanced == "5.1.1"
    assert text == "The email account does not exist. Please try double-checking."


@pytest.mark.parametrize(
    ("hosts", "provider"),
    [
        (["mta5.am0.yahoodns.net"], Provider.YAHOO),
        (["mx-aol.mail.gm0.yahoodns.net"], Provider.YAHOO),
        (["hotmail-com.olc.protection.outlook.com"], Provider.OUTLOOK_COM),
        (["contoso-com.mail.protection.outlook.com."], Provider.MICROSOFT_365),
        (["aspmx.l.google.com"], Provider.GOOGLE),
        (["mx.example.com"], Provider.GENERIC),
    ],
)
def test_provider_rules_are_recognised_from_mx_host_names(hosts, provider):
    assert rules_for(hosts).provider is provider
