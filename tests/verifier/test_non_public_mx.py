"""The prober never connects to an MX address that is not public unicast; loopback only in lab mode."""

from __future__ import annotations

import ipaddress
import json

import pytest

from maillab import MailLab
from verifier import scoring
from verifier.config import EngineConfig
from verifier.engine import Engine
from verifier.public_ip import refusal_reason, text_refusal_reason
from verifier.smtp import ProbeOutcome, SmtpVerdict
from verifier.syntax import SyntaxPolicy

REFUSED = [
    ("10.1.2.3", "a private address"),
    ("172.16.0.1", "a private address"),
    ("192.168.1.1", "a private address"),
    ("fc00::1", "a private address"),
    ("169.254.169.254", "a link-local address"),  # the cloud metadata service
    ("fe80::1", "a link-local address"),
    ("224.0.0.1", "a multicast address"),
    ("ff02::1", "a multicast address"),
    ("0.0.0.0", "an unspecified address"),
    ("::", "an unspecified address"),
    ("240.0.0.1", "a reserved address"),
    ("255.255.255.255", "a reserved address"),
    ("100.64.0.1", "not a public address"),  # shared address space (carrier-grade NAT)
    ("192.0.2.1", "a private address"),  # documentation
    ("198.18.0.1", "a private address"),  # benchmarking
    ("2001:db8::1", "a private address"),
    ("192.0.0.8", "not a public address"),  # Python 3.11 calls these global
    ("192.88.99.1", "not a public address"),
    ("fec0::1", "not a public address"),
    ("3fff::1", "not a public address"),
    ("::ffff:10.0.0.1", "a private address"),  # IPv4-mapped
    ("64:ff9b::a00:1", "a private address"),  # NAT64 of 10.0.0.1
    ("2002:a00:1::1", "a private address"),  # 6to4 of 10.0.0.1
]


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_non_public_addresses_are_refused_even_where_loopback_is_allowed(text: str, why: str) -> None:
    address = ipaddress.ip_address(text)
    assert refusal_reason(address) == refusal_reason(address, allow_loopback=True) == why


@pytest.mark.parametrize("text", ["127.0.0.11", "127.255.255.254", "::1", "::ffff:127.0.0.1"])
def test_loopback_is_refused_unless_allowed(text: str) -> None:
    assert text_refusal_reason(text) == "a loopback address"
    assert text_refusal_reason(text, allow_loopback=True) is None


@pytest.mark.parametrize("text", ["8.8.8.8", "2607:f8b0:4004:c07::1a", "64:ff9b::808:808", "::ffff:8.8.8.8"])
def test_public_unicast_is_allowed(text: str) -> None:
    assert text_refusal_reason(text) is None


def test_text_that_is_no_ip_address_is_refused() -> None:
    assert text_refusal_reason("mx.example.com") == "not an IP address"


def test_a_loopback_mx_is_not_contacted_without_lab_mode(probe, lab: MailLab) -> None:
    result = probe("mailbox.test", "alice", "zed", smtp_allow_loopback_mx=False)
    for item in result.results:
        assert (item.outcome, item.verdict, item.reason) == (
            ProbeOutcome.NOT_SENT,
            SmtpVerdict.UNKNOWN,
            "mx_not_public",
        )
        assert (item.evidence, item.retryable, item.prober_blocked) == (None, False, False)
        assert item.smtp_response == "mx_not_public"
    assert (result.transcript, result.sessions_opened, result.unreachable) == ((), 0, False)
    assert result.catch_all is None
    assert lab.servers["mailbox"].sessions_opened == 0
    ipv6 = probe("v6only.test", "alice", smtp_allow_loopback_mx=False)["alice@v6only.test"]
    assert ipv6.reason == "mx_not_public"


def test_lab_mode_reaches_loopback_but_never_another_non_public_address(probe, lab: MailLab) -> None:
    assert probe("mailbox.test", "alice")["alice@mailbox.test"].verdict is SmtpVerdict.DELIVERABLE
    assert probe("unspecified.test", "alice")["alice@unspecified.test"].reason == "mx_not_public"
    fallback = probe("unspecified-first.test", "alice")
    assert fallback["alice@unspecified-first.test"].verdict is SmtpVerdict.DELIVERABLE
    assert {item.ip for item in fallback.transcript} == {"127.0.0.11"}  # 0.0.0.0 was never tried


def test_an_engine_without_test_domains_reports_the_private_mx_and_carries_nothing_of_it(
    lab: MailLab,
) -> None:
    engine = Engine(lab.engine_config(smtp_allow_loopback_mx=False))
    assert engine.config.smtp_allow_loopback_mx is False
    result = engine.verify("alice@duck.com")  # a real name the lab answers: mx.duck.com is 127.0.0.11
    smtp = json.loads(json.dumps(result.to_dict()))["checks"]["smtp"]
    assert (smtp["passed"], smtp["status"]) == (False, "unknown")
    assert smtp["reason"] == "the MX host resolves to a non-public address, which is never contacted"
    assert smtp["metadata"]["reason"] == "mx_not_public"
    assert (smtp["metadata"]["smtpResponse"], smtp["metadata"]["mxHost"]) == ("mx_not_public", None)
    assert (result.score, result.severity.value, result.is_valid) == (65, "warning", True)
    assert scoring.MX_NOT_PUBLIC in result.recommendations
    assert lab.servers["mailbox"].sessions_opened == 0
    assert "127.0.0.11" not in json.dumps(result.to_dict())


def test_an_engine_that_accepts_test_domains_may_reach_loopback_as_the_lab_needs(lab: MailLab) -> None:
    engine = Engine(lab.engine_config(smtp_allow_loopback_mx=False), policy=SyntaxPolicy(test_domains=True))
    assert engine.config.smtp_allow_loopback_mx is True
    assert engine.verify("alice@duck.com").checks["smtp"].passed
    assert lab.servers["mailbox"].sessions_opened == 1


def test_no_environment_variable_opens_loopback() -> None:
    assert EngineConfig.from_env({"SMTP_ALLOW_LOOPBACK_MX": "true", "ALLOW_TEST_DOMAINS": "true"}) == (
        EngineConfig.from_env({})
    )
    assert EngineConfig().smtp_allow_loopback_mx is False
