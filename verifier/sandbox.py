"""Test mode's engine: magic addresses answered from a fixed table, never a DNS query nor an SMTP connection.

A test-mode validation (a ``sk_test_``/``pk_test_`` key, the dashboard's test switch) goes through every
stage the service has (parsing, jobs, results URLs, webhooks) except the network: its domain and mailbox
facts are made up here from the address's local part, then judged by the real checks and scoring
(``engine.assemble_facts``), so a magic address's result has exactly the shape, score and
recommendations a real one with those facts would have.

The local part picks the outcome, at any domain, case-insensitively; a ``+tag`` is ignored, so
``deliverable+42@example.com`` is a distinct address with the same outcome (batches of distinct magic
addresses, duplicates on purpose). The table is ``MAGIC`` (docs/sandbox.md prints it). Syntax errors are the
real parser's. Any other address answers ``smtp`` unknown with the reason ``not_a_magic_address``: test mode
checks nothing real, and says so rather than inventing a verdict.

``greylisted`` is the one outcome that changes: its first probe is a temporary failure with a short
``retryAfter`` (``GREYLIST_SECONDS``); asked again (``attempt`` 2 on, what ``retryTemporary`` does) it is
deliverable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from verifier.checks import Facts
from verifier.dns import DomainStatus, MailDomain, MxRecord
from verifier.engine import NO_LIST_FACTS, Options, assemble_facts
from verifier.lists import DomainFacts, RoleConfidence, RoleMatch
from verifier.lists.roles import NOT_A_ROLE
from verifier.results import ValidationResult
from verifier.smtp import AddressProbe, DomainProbeResult, ProbeOutcome, ReplyEvidence, SmtpVerdict
from verifier.syntax import ParsedAddress

SANDBOX_MX = "mx.sandbox.invalid"  # RFC 6761 .invalid: a host name that can never be resolved or reached
GREYLIST_SECONDS = 10
TYPO_TARGET = "example.com"
NOT_MAGIC = "not_a_magic_address"
NOT_MAGIC_ADVICE = (
    "Test mode: this is not a magic address, so nothing about it was checked. "
    "See the magic address table (docs/sandbox.md) for the outcomes test mode produces."
)


@dataclass(frozen=True, slots=True)
class Reply:
    """The made-up SMTP answer to RCPT TO: what the real prober would have concluded from it."""

    outcome: ProbeOutcome
    verdict: SmtpVerdict
    reason: str
    code: int | None
    text: str
    retry_after: int | None = None
    prober_blocked: bool = False


ACCEPTED = Reply(
    ProbeOutcome.ACCEPTED, SmtpVerdict.DELIVERABLE, "accepted", 250, "2.1.5 Sandbox: recipient ok"
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One row of the magic table: the facts a real check of such an address would have found."""

    reply: Reply | None = ACCEPTED  # None: no mail server to ask
    domain: DomainStatus = DomainStatus.ACCEPTS_MAIL
    catch_all: bool | None = False
    disposable: bool = False
    role: bool = False
    free: bool = False
    typo: bool = False


def _unknown(outcome: ProbeOutcome, reason: str, code: int | None, text: str, **more: object) -> Reply:
    return Reply(outcome, SmtpVerdict.UNKNOWN, reason, code, text, **more)  # type: ignore[arg-type]


MAGIC: Mapping[str, Outcome] = {
    "deliverable": Outcome(),
    "undeliverable": Outcome(
        Reply(
            ProbeOutcome.REJECTED_MAILBOX,
            SmtpVerdict.UNDELIVERABLE,
            "mailbox_unknown",
            550,
            "5.1.1 Sandbox: no such user",
        ),
    ),
    "catch-all": Outcome(catch_all=True),
    "disposable": Outcome(disposable=True),
    "role": Outcome(role=True),
    "free": Outcome(free=True),
    "typo": Outcome(typo=True),
    "full": Outcome(
        Reply(ProbeOutcome.FULL, SmtpVerdict.FULL, "mailbox_full", 552, "5.2.2 Sandbox: mailbox full"),
    ),
    "disabled": Outcome(
        Reply(
            ProbeOutcome.DISABLED,
            SmtpVerdict.DISABLED,
            "mailbox_disabled",
            550,
            "5.2.1 Sandbox: account disabled",
        ),
    ),
    "greylisted": Outcome(
        _unknown(
            ProbeOutcome.TEMPORARY,
            "greylisted",
            451,
            "4.7.1 Sandbox: greylisted, try again later",
            retry_after=GREYLIST_SECONDS,
        ),
        catch_all=None,
    ),
    "timeout": Outcome(_unknown(ProbeOutcome.NO_ANSWER, "timeout", None, "timed out"), catch_all=None),
    "blocked": Outcome(
        _unknown(
            ProbeOutcome.REJECTED_POLICY,
            "prober_blocked",
            554,
            "5.7.1 Sandbox: client host blocked",
            prober_blocked=True,
        ),
        catch_all=None,
    ),
    "no-domain": Outcome(None, DomainStatus.NXDOMAIN, catch_all=None),
}
OTHER = Outcome(_unknown(ProbeOutcome.NO_ANSWER, NOT_MAGIC, None, "not a magic address"), catch_all=None)


def magic_name(local_part: str) -> str | None:
    """The table row ``local_part`` names (``Deliverable+7`` -> ``deliverable``), None for other addresses."""
    base = local_part.strip('"').lower().partition("+")[0]
    return base if base in MAGIC else None


def result(parsed: ParsedAddress, options: Options, *, attempt: int = 1) -> ValidationResult:
    """``parsed``'s test-mode result: the outcome its local part names, judged like a real one; the
    ``attempt``-th time it is asked (``greylisted`` settles deliverable from the second)."""
    name = magic_name(parsed.local_part)
    outcome = MAGIC[name] if name is not None else OTHER
    if name == "greylisted" and attempt > 1:
        outcome = MAGIC["deliverable"]
    judged = assemble_facts(_facts(parsed, outcome, options), options)
    if name is None:
        return replace(judged, recommendations=(*judged.recommendations, NOT_MAGIC_ADVICE))
    return judged


def retry_after(parsed: ParsedAddress, options: Options, *, attempt: int = 1) -> int | None:
    """How long a probed address asks to be left before it is asked again (``greylisted``'s first time)."""
    name = magic_name(parsed.local_part)
    if name != "greylisted" or attempt > 1 or not options.probes_smtp:
        return None
    return GREYLIST_SECONDS


def _facts(parsed: ParsedAddress, outcome: Outcome, options: Options) -> Facts:
    mail_domain = _mail_domain(parsed, outcome) if options.resolves_domain else None
    probe = None
    if mail_domain is not None and mail_domain.accepts_mail and options.probes_smtp and outcome.reply:
        probe = _probe(parsed, outcome, outcome.reply)
    return Facts(
        parsed=parsed,
        mail_domain=mail_domain,
        domain_probe=probe,
        lists=_lists(parsed, outcome),
        role=RoleMatch(True, RoleConfidence.HIGH, "role", "sandbox") if outcome.role else NOT_A_ROLE,
        typo_domain=_typo(parsed) if outcome.typo else None,
        provider=None,
    )


def _mail_domain(parsed: ParsedAddress, outcome: Outcome) -> MailDomain:
    if outcome.domain is not DomainStatus.ACCEPTS_MAIL:
        return MailDomain(parsed.ascii_domain, outcome.domain, detail="sandbox")
    return MailDomain(parsed.ascii_domain, outcome.domain, (MxRecord(10, SANDBOX_MX),), detail="sandbox")


def _probe(parsed: ParsedAddress, outcome: Outcome, reply: Reply) -> DomainProbeResult:
    enhanced, _, text = reply.text.partition(" ") if reply.code else ("", "", reply.text)
    evidence = ReplyEvidence(
        SANDBOX_MX, "", "RCPT TO", reply.code, enhanced or None, text, tls=False, latency_ms=0.0
    )
    address = AddressProbe(
        parsed.email,
        reply.outcome,
        reply.verdict,
        reply.reason,
        evidence,
        retryable=reply.retry_after is not None,
        retry_after=reply.retry_after,
        prober_blocked=reply.prober_blocked,
    )
    return DomainProbeResult(
        parsed.ascii_domain, "sandbox", (address,), outcome.catch_all, None, 0, unreachable=False
    )


def _lists(parsed: ParsedAddress, outcome: Outcome) -> DomainFacts:
    entry = parsed.ascii_domain if outcome.disposable else None
    return replace(NO_LIST_FACTS, disposable_entry=entry, is_free=outcome.free)


def _typo(parsed: ParsedAddress) -> str:
    return TYPO_TARGET if parsed.ascii_domain != TYPO_TARGET else "example.org"
