"""The spec 2.2 check results, built from what the stages found (``Facts``).

One small function per check. Metadata keys are the spec's where it names them (``localPart``, ``hasMX``,
``mxRecords``, ``isRole``, ``confidence``, ``smtpResponse``, ``isCatchAll``, ``isCorporate``) plus a few of
our own that a client needs to act (``retryAfter``, ``proberBlocked``, ``isRelay``, ``suggestion``).

``passed`` means "no concern found". Informational checks (free provider, corporate, mailbox provider)
pass whenever they ran: being on Gmail is not a failure, the metadata says what was found.

``passed: false`` alone would mix three different things, so the spec's optional ``status``/``reason`` say
which one it is when it is not a plain finding: ``skipped`` (asked for, but there was nothing to ask, e.g.
smtp on a domain without mail server) and ``unknown`` (asked, no conclusion: greylisting, a block, a
timeout). A catch-all that could not be determined is ``isCatchAll: null``, never ``false``.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.dns import DomainStatus, MailDomain
from verifier.lists import DomainFacts, MailboxProvider, RoleMatch
from verifier.results import CheckName, CheckResult, JsonValue
from verifier.smtp import INTERNAL_ERROR, AddressProbe, DomainProbeResult, SmtpVerdict
from verifier.syntax import ParsedAddress, SyntaxFailure

DOMAIN_MESSAGES = {
    DomainStatus.ACCEPTS_MAIL: "The domain accepts mail.",
    DomainStatus.NULL_MX: "The domain declares that it accepts no mail (null MX).",
    DomainStatus.NO_MAIL_HOSTS: "The domain has no mail server.",
    DomainStatus.NXDOMAIN: "The domain does not exist.",
    DomainStatus.UNKNOWN: "The domain's DNS did not answer; its mail servers are unknown.",
}
SMTP_MESSAGES = {
    SmtpVerdict.DELIVERABLE: "The mail server accepted the mailbox.",
    SmtpVerdict.UNDELIVERABLE: "The mail server says the mailbox does not exist.",
    SmtpVerdict.FULL: "The mailbox exists but is full.",
    SmtpVerdict.DISABLED: "The mailbox exists but is disabled.",
    SmtpVerdict.UNKNOWN: "The mailbox could not be verified.",
}
CATCH_ALL_MESSAGES = {
    True: "The domain accepts mail for any address.",
    False: "The domain rejects unknown addresses.",
    None: "Whether the domain accepts any address could not be determined.",
}
NOT_PROBED = {"checked": False}
SKIPPED = "skipped"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Facts:
    """Everything known about one parsed address once its stages have run."""

    parsed: ParsedAddress
    mail_domain: MailDomain | None
    domain_probe: DomainProbeResult | None
    lists: DomainFacts
    role: RoleMatch
    typo_domain: str | None
    provider: MailboxProvider | None
    degraded: bool = False

    @property
    def address_probe(self) -> AddressProbe | None:
        """This address's own probe, when the domain was probed."""
        if self.domain_probe is None or self.mail_domain is None or not self.mail_domain.accepts_mail:
            return None
        return self.domain_probe.get(self.parsed.email)

    @property
    def is_corporate(self) -> bool:
        """A real mail domain that is neither free, disposable nor a relay service."""
        real = self.mail_domain is not None and self.mail_domain.accepts_mail and not self.parsed.is_literal
        personal = self.lists.is_free or self.lists.relay_service or self.lists.disposable_entry
        return real and not personal


def syntax_passed(parsed: ParsedAddress) -> CheckResult:
    metadata: dict[str, JsonValue] = {
        "normalizedEmail": parsed.email,
        "localPart": parsed.local_part,
        "domain": parsed.domain,
        "asciiDomain": parsed.ascii_domain,
        "smtpUtf8": parsed.needs_smtputf8,
        "isLiteral": parsed.is_literal,
    }
    return CheckResult(CheckName.SYNTAX, True, "The address is well formed.", metadata)


def syntax_failed(failure: SyntaxFailure) -> CheckResult:
    return CheckResult(CheckName.SYNTAX, False, failure.reason, {}, status="fail", reason=failure.reason)


def domain_check(facts: Facts, with_mx_records: bool) -> CheckResult:
    domain = facts.mail_domain
    if domain is None:
        return CheckResult(CheckName.DOMAIN, False, "The domain was not checked.", NOT_PROBED)
    metadata: dict[str, JsonValue] = {
        "hasMX": domain.has_mx,
        "status": domain.status.value,
        "implicitMX": domain.implicit_mx,
    }
    if with_mx_records:
        metadata["mxRecords"] = list(domain.mx_hosts)
    return CheckResult(CheckName.DOMAIN, domain.accepts_mail, DOMAIN_MESSAGES[domain.status], metadata)


def disposable_check(facts: Facts, suggests: bool) -> CheckResult:
    """``suggests``: the typo suggestion is part of this result, so a listed look-alike of a provider
    (``gmial.com``) is named as such: its mail never reaches the provider meant, which is the problem;
    "throwaway inbox" would be a second, wrong diagnosis."""
    entry, relay = facts.lists.disposable_entry, facts.lists.relay_service
    metadata: dict[str, JsonValue] = {"isDisposable": entry is not None, "isRelay": relay is not None}
    if entry:
        metadata["matchedDomain"] = entry
        if suggests and facts.typo_domain:
            metadata["lookAlikeOf"] = facts.typo_domain
            message = f"Look-alike of {facts.typo_domain}: mail sent here does not reach {facts.typo_domain}."
            return CheckResult(CheckName.DISPOSABLE, False, message, metadata)
        return CheckResult(CheckName.DISPOSABLE, False, "Disposable email provider.", metadata)
    if relay:
        metadata["relayService"] = relay
        return CheckResult(
            CheckName.DISPOSABLE, True, f"Forwarding address ({relay}), not disposable.", metadata
        )
    return CheckResult(CheckName.DISPOSABLE, True, "Not a disposable email provider.", metadata)


def role_check(facts: Facts) -> CheckResult:
    role = facts.role
    metadata: dict[str, JsonValue] = {"isRole": role.is_role, "confidence": role.confidence.value}
    if not role.is_role:
        return CheckResult(CheckName.ROLE_BASED, True, "Not a role-based address.", metadata)
    metadata.update(matched=role.matched, category=role.category)
    return CheckResult(CheckName.ROLE_BASED, False, f"Role-based address ({role.matched}).", metadata)


def skipped(name: str, why: str) -> CheckResult:
    """A check that was asked for but had nothing to ask: ``status: skipped``, never read as a failure."""
    return CheckResult(name, False, f"Not checked: {why}.", NOT_PROBED, status=SKIPPED, reason=why)


def _not_probed_reason(facts: Facts) -> str:
    if facts.parsed.is_literal:
        return "address literals are not probed"
    if facts.mail_domain is not None and facts.mail_domain.status is DomainStatus.UNKNOWN:
        return "the domain's mail servers are unknown"
    return "no mail server to ask"


def smtp_check(facts: Facts) -> CheckResult:
    probe = facts.address_probe
    if probe is None:
        return skipped(CheckName.SMTP, _not_probed_reason(facts))
    metadata: dict[str, JsonValue] = {
        "smtpResponse": probe.smtp_response,
        "verdict": probe.verdict.value,
        "reason": probe.reason,
        "retryable": probe.retryable,
        "retryAfter": probe.retry_after,
        "proberBlocked": probe.prober_blocked,
        "mxHost": probe.evidence.mx_host if probe.evidence else None,
        "checkerDegraded": facts.degraded,
    }
    passed = probe.verdict is SmtpVerdict.DELIVERABLE
    message = SMTP_MESSAGES[probe.verdict]
    if probe.verdict is SmtpVerdict.UNKNOWN:
        return CheckResult(CheckName.SMTP, passed, message, metadata, UNKNOWN, _words(probe.reason))
    return CheckResult(CheckName.SMTP, passed, message, metadata)


def catch_all_check(facts: Facts) -> CheckResult:
    probe = facts.domain_probe
    if facts.address_probe is None or probe is None:
        return skipped(CheckName.CATCH_ALL, _not_probed_reason(facts))
    verdict = probe.catch_all
    metadata: dict[str, JsonValue] = {"isCatchAll": verdict, "determined": verdict is not None}
    if probe.catch_all_probe is not None:
        metadata["smtpResponse"] = probe.catch_all_probe.smtp_response
    message = CATCH_ALL_MESSAGES[verdict]
    if verdict is None:
        return CheckResult(CheckName.CATCH_ALL, False, message, metadata, UNKNOWN, _catch_all_doubt(probe))
    return CheckResult(CheckName.CATCH_ALL, verdict is False, message, metadata)


def _catch_all_doubt(probe: DomainProbeResult) -> str:
    """Why the catch-all verdict is missing, in words a client can show."""
    if probe.catch_all_probe is not None:
        return f"the random-address probe got no clear answer ({_words(probe.catch_all_probe.reason)})"
    if any(item.reason == INTERNAL_ERROR for item in probe.results):
        return "the domain could not be checked because of a fault on our side; try again"
    if any(item.reason == "provider_accepts_all" for item in probe.results):
        return "the provider accepts every address at first, so no probe can tell"
    if any(item.verdict is SmtpVerdict.DELIVERABLE for item in probe.results):
        return "the random-address probe could not be sent"
    return "no address was accepted, so there was no acceptance to test"


REASON_WORDS = {
    "mx_not_public": "the MX host resolves to a non-public address, which is never contacted",
    INTERNAL_ERROR: "the mailbox could not be checked because of a fault on our side; try again",
    "egress_fault": "our outbound route to the mail server failed, so the mailbox was not asked; try again",
}


def _words(reason: str) -> str:
    """A machine reason (``prober_blocked``) as words (``prober blocked``), or its own sentence."""
    return REASON_WORDS.get(reason) or reason.replace("_", " ")


def free_check(facts: Facts) -> CheckResult:
    free = facts.lists.is_free
    message = "Free email provider." if free else "Not a free email provider."
    return CheckResult(CheckName.FREE_EMAIL, True, message, {"isFree": free})


def corporate_check(facts: Facts) -> CheckResult:
    corporate = facts.is_corporate
    message = "Company or organisation domain." if corporate else "Not a company domain."
    return CheckResult(CheckName.CORPORATE_EMAIL, True, message, {"isCorporate": corporate})


def typo_check(facts: Facts) -> CheckResult:
    suggestion = facts.typo_domain
    if suggestion is None:
        return CheckResult(CheckName.TYPO_SUGGESTION, True, "No typo found.", {"suggestion": None})
    email = f"{facts.parsed.local_part}@{suggestion}"
    metadata: dict[str, JsonValue] = {"suggestion": suggestion, "suggestedEmail": email}
    return CheckResult(CheckName.TYPO_SUGGESTION, False, f"Did you mean {email}?", metadata)


def provider_check(facts: Facts) -> CheckResult:
    provider = facts.provider
    if provider is None:
        return CheckResult(
            CheckName.MAILBOX_PROVIDER, True, "Mailbox provider not recognised.", {"provider": None}
        )
    metadata: dict[str, JsonValue] = {
        "provider": provider.name,
        "kind": provider.kind,
        "mxHost": provider.mx_host,
    }
    return CheckResult(CheckName.MAILBOX_PROVIDER, True, f"Mail handled by {provider.name}.", metadata)
