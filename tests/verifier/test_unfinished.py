"""A result drawn when the time budget ran out: what is known is kept, what was still waiting for the
network is unknown with the reason timeout, and a slow network never makes an address invalid."""

from __future__ import annotations

from typing import Any

from verifier.dns import DomainStatus, MailDomain, MxRecord
from verifier.engine import Options
from verifier.syntax import ParsedAddress, parse_input
from verifier.unfinished import unfinished

ACCEPTS = MailDomain("gmial.com", DomainStatus.ACCEPTS_MAIL, (MxRecord(10, "mx.gmial.com", ("192.0.2.25",)),))


def judged(domain: MailDomain | None, address: str = "info@gmial.com") -> dict[str, Any]:
    parsed = parse_input(address)
    assert isinstance(parsed, ParsedAddress)
    return unfinished(parsed, domain, Options()).to_dict()


def waiting(result: dict[str, Any]) -> set[str]:
    return {name for name, check in result["checks"].items() if check.get("reason") == "timeout"}


def test_before_dns_answered_the_domain_and_mailbox_wait_and_the_rest_is_known() -> None:
    result = judged(None)

    assert waiting(result) == {"domain", "smtp", "catchAll"}
    assert {result["checks"][name]["status"] for name in waiting(result)} == {"unknown"}
    assert result["checks"]["typoSuggestion"]["metadata"]["suggestedEmail"] == "info@gmail.com"
    assert result["checks"]["roleBased"]["metadata"]["isRole"] is True
    assert result["severity"] != "invalid"


def test_once_dns_answered_only_the_mail_server_waits() -> None:
    result = judged(ACCEPTS, "alice@gmial.com")

    assert waiting(result) == {"smtp", "catchAll"}
    assert result["checks"]["domain"]["passed"] is True
    assert result["checks"]["smtp"]["metadata"] == {
        "checked": False,
        "verdict": "unknown",
        "reason": "timeout",
    }


def test_a_domain_without_mail_server_is_final_whatever_the_budget() -> None:
    result = judged(MailDomain("gmial.com", DomainStatus.NXDOMAIN, ()))

    assert waiting(result) == set()
    assert result["checks"]["smtp"]["status"] == "skipped"
    assert result["severity"] == "invalid"
