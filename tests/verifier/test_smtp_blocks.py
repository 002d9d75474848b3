"""Which refusals block the (egress, MX address) pair: about the client, never about a mailbox."""

from __future__ import annotations

import pytest

from verifier.smtp import ReplyEvidence, classify, rules_for
from verifier.smtp.evidence import parse_reply

GENERIC = rules_for(["mx.example.com"])


def evidence(command: str, line: str | None, text: str = "") -> ReplyEvidence:
    if line is None:
        return ReplyEvidence("mx.example.com", "192.0.2.1", command, None, None, text, False, 1.0)
    code, _, rest = line.partition(" ")
    enhanced, parsed = parse_reply(rest)
    return ReplyEvidence("mx.example.com", "192.0.2.1", command, int(code), enhanced, parsed, False, 1.0)


BLOCKS = [
    ("CONNECT", "554 5.7.1 Service unavailable; Client host [192.0.2.9] blocked using zen.spamhaus.org"),
    ("CONNECT", "554 mx.example.com ESMTP not accepting messages"),
    ("EHLO prober.example.com", "550 5.7.1 Client host rejected: cannot find your reverse hostname"),
    ("MAIL FROM:<probe@example.com>", "554 Blocked - see https://ipcheck.proofpoint.com/?ip=192.0.2.9"),
    ("MAIL FROM:<probe@example.com>", "553 5.1.8 Sender address rejected: Domain not found"),
    ("RCPT TO:<a@example.com>", "550 5.7.606 Access denied, banned sending IP [192.0.2.9]."),
    (
        "RCPT TO:<a@example.com>",
        "554 5.7.1 Service unavailable; Client host [192.0.2.9] blocked using b.barracudacentral.org",
    ),
    ("RCPT TO:<a@example.com>", "550 5.7.1 rejected: policy"),
    (
        "RCPT TO:<a@example.com>",
        "450 4.7.1 Client host rejected: cannot find your reverse hostname, [192.0.2.9]",
    ),
]
NOT_BLOCKS = [
    ("RCPT TO:<a@example.com>", "550 5.1.1 <a@example.com>: Recipient address rejected: User unknown"),
    ("RCPT TO:<a@example.com>", "554 5.7.1 <a@example.com>: Relay access denied"),
    ("RCPT TO:<a@example.com>", "550 5.7.1 This account has been suspended"),
    ("RCPT TO:<a@example.com>", "452 4.2.2 Mailbox full"),
    ("RCPT TO:<a@example.com>", "450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted"),
    ("CONNECT", "421 4.3.2 Service not available, closing transmission channel"),
    (
        "RCPT TO:<a@example.com>",
        "421 4.7.28 Gmail has detected an unusual rate of unsolicited mail from your IP",
    ),
    ("MAIL FROM:<probe@example.com>", "530 5.7.0 Must issue a STARTTLS command first"),
]


@pytest.mark.parametrize(("command", "line"), BLOCKS)
def test_a_refusal_about_the_client_blocks_the_pair_and_judges_no_mailbox(command, line):
    found = classify(evidence(command, line), GENERIC, 300, rcpt=command.startswith("RCPT"))
    assert found.blocked
    assert found.outcome.value in ("rejected-policy", "temporary")


@pytest.mark.parametrize(("command", "line"), NOT_BLOCKS)
def test_a_refusal_about_the_mailbox_or_a_pause_is_no_block(command, line):
    assert not classify(evidence(command, line), GENERIC, 300, rcpt=command.startswith("RCPT")).blocked


@pytest.mark.parametrize("text", ["connection refused", "connection reset"])
def test_a_refused_or_reset_connection_blocks_the_pair(text):
    assert classify(evidence("CONNECT", None, text), GENERIC, 300, rcpt=False).blocked


def test_an_egress_fault_is_neither_a_block_nor_about_the_mailbox():
    found = classify(evidence("CONNECT", None, "egress fault: proxy unreachable"), GENERIC, 300, rcpt=False)
    assert (found.reason, found.egress_fault, found.blocked) == ("egress_fault", True, False)
    assert found.outcome.value == "no-answer"
    assert found.retry_after == 300
