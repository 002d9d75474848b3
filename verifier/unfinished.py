"""A result drawn before every check finished: the answer's time budget ran out first.

What is known is kept (syntax, the lists, the typo suggestion, and the domain when DNS answered in time);
each check still waiting for the network is ``unknown`` with the reason ``timeout``, and the result is scored
as unknowns are (docs/scoring.md), never as a failure: a slow mail server says nothing about the mailbox.
"""

from __future__ import annotations

import dataclasses

from verifier.dns import DomainStatus, MailDomain
from verifier.engine import Options, assemble
from verifier.results import CheckName, CheckResult, JsonValue, ValidationResult
from verifier.smtp import not_probed
from verifier.syntax import ParsedAddress

TIMEOUT = "timeout"
WAITING = "Not finished within the time budget."


def unfinished(parsed: ParsedAddress, mail_domain: MailDomain | None, options: Options) -> ValidationResult:
    """``parsed`` judged on what is known: ``mail_domain`` None when DNS had not answered either."""
    domain = mail_domain or MailDomain(parsed.ascii_domain, DomainStatus.UNKNOWN, ())
    asks_server = options.probes_smtp and domain.accepts_mail and not parsed.is_literal
    probe = not_probed(domain, [parsed.email], TIMEOUT) if asks_server else None
    result = assemble(parsed, domain, probe, options)
    waiting = {CheckName.SMTP, CheckName.CATCH_ALL} if asks_server or mail_domain is None else set()
    if mail_domain is None:
        waiting.add(CheckName.DOMAIN)
    checks = {name: _timed_out(name) if name in waiting else check for name, check in result.checks.items()}
    return dataclasses.replace(result, checks=checks)


def _timed_out(name: str) -> CheckResult:
    metadata: dict[str, JsonValue] = {"checked": False, "verdict": "unknown", "reason": TIMEOUT}
    return CheckResult(name, False, WAITING, metadata, status="unknown", reason=TIMEOUT)
