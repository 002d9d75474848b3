"""The verdict: a 0-100 score, ``isValid``, severity and plain-word recommendations (docs/scoring.md).

The model, in short:

* **Critical** findings make an address invalid: the domain accepts no mail (NXDOMAIN, null MX, no mail
  host), or the SMTP server rejected the mailbox or reported it disabled. Each has a ceiling in the invalid
  band (0-39); a syntax failure never gets here (score 0, only the syntax check).
* Every other finding **costs** points from 100. They can never take an address below 40: doubt is a
  warning, never "invalid". So ``severity == invalid`` exactly when ``isValid`` is false.
* "Unknown" is a cost, not a verdict: DNS timeout/SERVFAIL, no SMTP answer, greylisting, a blocked prober
  or a provider that accepts everything at RCPT all cost the same 35 points (warning band at worst).
* A sure role address costs as much as an unknown: deliverable, but not a person (warning band).

Recommendations follow the order of the rules below, critical ones first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from verifier.dns import DomainStatus
from verifier.lists import RoleConfidence, RoleMatch
from verifier.results import WARNING_FROM, Severity
from verifier.smtp.faults import INTERNAL_ERROR
from verifier.smtp.result import SmtpVerdict

PERFECT = 100
CEILING_NO_MAIL_DOMAIN = 5
CEILING_MAILBOX_REJECTED = 10
CEILING_MAILBOX_DISABLED = 15
COST_UNKNOWN = 35  # DNS or SMTP could not tell: 65 at best, a warning
COST_CATCH_ALL = 35
COST_CATCH_ALL_UNKNOWN = 10
COST_MAILBOX_FULL = 45
COST_DISPOSABLE = 45
COST_TYPO = 30
COST_NOT_PROBED = 10  # quickMode: the mailbox itself was not asked about
COST_IMPLICIT_MX = 5
COST_FREE = 5
# A sure role (postmaster@, info@, sales@) is a warning even when its mailbox exists: it reaches a team, often
# a shared inbox or a ticket queue, and list cleaners (ZeroBounce "do_not_mail", Kickbox and Reacher "risky")
# do not count it as a person. Medium and low matches are often people (ceo@, berlin@, hr.team@).
COST_ROLE = {RoleConfidence.HIGH: 35, RoleConfidence.MEDIUM: 20, RoleConfidence.LOW: 10}
MINUTE = 60

NXDOMAIN = "The domain does not exist."
NULL_MX = "The domain declares that it accepts no email (null MX)."
NO_MAIL_HOST = "The domain has no mail server."
DNS_UNKNOWN = "The domain's DNS did not answer; check again later."
REJECTED = "The mailbox does not exist: remove this address."
DISABLED = "The mailbox is disabled: remove this address."
FULL = "The mailbox is full: mail will bounce until its owner makes room."
DEGRADED = "Our checker could not reach mail servers just now; the mailbox was not verified. Retry later."
ACCEPTS_ALL = "{provider} accepts every address at first and bounces later: the mailbox cannot be confirmed."
BLOCKED = "The mail server refused to be checked (policy or block list): the mailbox is unverified."
GREYLISTED = "The mail server asked us to retry later (greylisting): check again in {minutes} min."
UNAVAILABLE = "The mail server was temporarily unavailable: check again in {minutes} min."
NO_SMTPUTF8 = "The mail server cannot receive internationalised addresses; the mailbox is unverified."
NO_ANSWER = "The mail server did not give a usable answer: the mailbox could not be verified."
MX_NOT_PUBLIC = (
    "The domain's mail server has a private or reserved address: it was not contacted, and mail from the "
    "internet cannot reach it there."
)
CATCH_ALL = "Catch-all domain: the mailbox cannot be confirmed."
CATCH_ALL_UNKNOWN = "Whether the domain accepts every address could not be determined."
TYPO = "Did you mean {address}?"
OUR_FAULT = "The mailbox could not be checked because of a fault on our side; try again."
# Addresses the prober did not ask about, and why.
NOT_ASKED_ADVICE = {
    "mx_not_public": MX_NOT_PUBLIC,
    "smtputf8_unsupported": NO_SMTPUTF8,
    INTERNAL_ERROR: OUR_FAULT,
}
DISPOSABLE = "Disposable address ({domain}): it stops working soon; ask for a lasting one."
ROLE = "Role address ({name}@): it reaches a team or a function, not a person."


@dataclass(frozen=True, slots=True)
class Findings:
    """What the checks found, flattened for scoring. ``None`` means "not checked"."""

    local_part: str
    domain_status: DomainStatus | None = None
    implicit_mx: bool = False
    smtp: SmtpVerdict | None = None
    smtp_skipped: bool = False  # quickMode: no probe was asked for
    smtp_reason: str = ""
    prober_blocked: bool = False
    retry_after: int | None = None
    checker_degraded: bool = False
    provider: str | None = None
    catch_all: bool | None = None
    catch_all_checked: bool = False
    disposable_entry: str | None = None
    role: RoleMatch | None = None
    free: bool = False
    typo_domain: str | None = None


@dataclass(frozen=True, slots=True)
class Penalty:
    """One finding's effect: points off, or a ceiling when it is critical, and the advice it gives."""

    advice: str | None
    cost: int = 0
    ceiling: int | None = None

    @property
    def critical(self) -> bool:
        return self.ceiling is not None


@dataclass(frozen=True, slots=True)
class Verdict:
    score: int
    is_valid: bool
    severity: Severity
    recommendations: tuple[str, ...]


def judge(findings: Findings) -> Verdict:
    """Apply the model to the findings."""
    penalties = [penalty for rule in RULES for penalty in rule(findings)]
    critical = [penalty.ceiling for penalty in penalties if penalty.ceiling is not None]
    score = PERFECT - sum(penalty.cost for penalty in penalties)
    score = min([score, *critical]) if critical else max(score, WARNING_FROM)
    score = max(0, min(PERFECT, score))
    advice = tuple(dict.fromkeys(penalty.advice for penalty in penalties if penalty.advice))
    return Verdict(score, not critical, Severity.from_score(score), advice)


def _domain(found: Findings) -> Iterator[Penalty]:
    status = found.domain_status
    if status is DomainStatus.NXDOMAIN:
        yield Penalty(NXDOMAIN, ceiling=CEILING_NO_MAIL_DOMAIN)
    elif status is DomainStatus.NULL_MX:
        yield Penalty(NULL_MX, ceiling=CEILING_NO_MAIL_DOMAIN)
    elif status is DomainStatus.NO_MAIL_HOSTS:
        yield Penalty(NO_MAIL_HOST, ceiling=CEILING_NO_MAIL_DOMAIN)
    elif status is DomainStatus.UNKNOWN:
        yield Penalty(DNS_UNKNOWN, COST_UNKNOWN)
    elif found.implicit_mx:
        yield Penalty(None, COST_IMPLICIT_MX)


def _mailbox(found: Findings) -> Iterator[Penalty]:
    if found.smtp is SmtpVerdict.UNDELIVERABLE:
        yield Penalty(REJECTED, ceiling=CEILING_MAILBOX_REJECTED)
    elif found.smtp is SmtpVerdict.DISABLED:
        yield Penalty(DISABLED, ceiling=CEILING_MAILBOX_DISABLED)
    elif found.smtp is SmtpVerdict.FULL:
        yield Penalty(FULL, COST_MAILBOX_FULL)
    elif found.smtp is SmtpVerdict.UNKNOWN:
        yield Penalty(_unknown_mailbox_advice(found), COST_UNKNOWN)
    elif found.smtp is None and found.smtp_skipped and found.domain_status is DomainStatus.ACCEPTS_MAIL:
        yield Penalty(None, COST_NOT_PROBED)


def _unknown_mailbox_advice(found: Findings) -> str:
    """Why the mailbox is unknown, most specific cause first."""
    if found.checker_degraded:
        return DEGRADED
    if found.smtp_reason in NOT_ASKED_ADVICE:
        return NOT_ASKED_ADVICE[found.smtp_reason]
    if found.smtp_reason == "provider_accepts_all":
        return ACCEPTS_ALL.format(provider=found.provider or "This provider")
    if found.prober_blocked:
        return BLOCKED
    if found.retry_after:
        advice = GREYLISTED if found.smtp_reason == "greylisted" else UNAVAILABLE
        return advice.format(minutes=max(1, round(found.retry_after / MINUTE)))
    return NO_ANSWER


def _catch_all(found: Findings) -> Iterator[Penalty]:
    """Only an accepted mailbox is in doubt on a catch-all domain; skipCatchAll means no verdict, no cost."""
    if found.smtp is not SmtpVerdict.DELIVERABLE or not found.catch_all_checked:
        return
    if found.catch_all is True:
        yield Penalty(CATCH_ALL, COST_CATCH_ALL)
    elif found.catch_all is None:
        yield Penalty(CATCH_ALL_UNKNOWN, COST_CATCH_ALL_UNKNOWN)


def _typo(found: Findings) -> Iterator[Penalty]:
    if found.typo_domain:
        yield Penalty(TYPO.format(address=f"{found.local_part}@{found.typo_domain}"), COST_TYPO)


def _disposable(found: Findings) -> Iterator[Penalty]:
    """A listed domain that is a typo of a provider (``gmial.com``) costs as much, but its advice is the
    typo's: "did you mean" is what to do, and "it stops working soon" would not be true of it."""
    if found.disposable_entry:
        advice = None if found.typo_domain else DISPOSABLE.format(domain=found.disposable_entry)
        yield Penalty(advice, COST_DISPOSABLE)


def _role(found: Findings) -> Iterator[Penalty]:
    if found.role is not None and found.role.is_role:
        yield Penalty(ROLE.format(name=found.role.matched), COST_ROLE[found.role.confidence])


def _free(found: Findings) -> Iterator[Penalty]:
    if found.free:
        yield Penalty(None, COST_FREE)


RULES: tuple[Callable[[Findings], Iterator[Penalty]], ...] = (
    _domain,
    _mailbox,
    _catch_all,
    _typo,
    _disposable,
    _role,
    _free,
)
