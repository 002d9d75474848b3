"""What a web form is told about an address: enough to decide, nothing more.

A form needs to know whether to let the address through (``verdict``), what to say (``reason``), what the
page chose to block (``disposable``, ``role``) and what to offer (``suggestion``). It never gets the score,
SMTP replies, MX hosts or the mailbox provider: the page is public, and those describe other people's
infrastructure and our prober, not the visitor's typing.

``verdict`` is the result's severity (``valid``, ``warning``, ``invalid``), or ``unknown`` when there is no
result to tell (the visitor or the key was throttled, the account's limits were reached): a form lets an
``unknown`` address through. ``reason`` is the one finding that matters most (``Reason``: not an address,
then a typo, then what makes it undeliverable, then what the page may block, then doubts), or null when
nothing stands out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

VerdictName = Literal["valid", "warning", "invalid", "unknown"]
UNKNOWN: VerdictName = "unknown"
Reason = Literal[
    "syntax",  # not an email address
    "no_mail_server",  # the domain does not exist, or takes no mail
    "mailbox_not_found",  # the mail server says there is no such mailbox
    "mailbox_disabled",
    "mailbox_full",
    "typo",  # a likely typo of a common provider: ``suggestion`` has the address meant
    "disposable",
    "role",  # a role account (info@, sales@), not a person
    "timeout",  # not every check finished within the time budget
    "unverified",  # the mail server gave no answer about the mailbox (greylisting, a block)
    "accept_all",  # the domain accepts any address, so the mailbox cannot be confirmed
    "throttled",  # nothing ran: too many requests from this visitor or with this key, or the account's limits
]
REASONS: tuple[Reason, ...] = get_args(Reason)
_DOMAIN_GONE = {"nxdomain", "null_mx", "no_mail_hosts"}
_SMTP_FINAL: dict[str, Reason] = {
    "undeliverable": "mailbox_not_found",
    "disabled": "mailbox_disabled",
    "full": "mailbox_full",
}
_TIMEOUTS = {"timeout", "connect_timeout", "deadline"}


@dataclass(frozen=True)
class Verdict:
    email: str
    verdict: VerdictName
    reason: Reason | None
    disposable: bool | None  # None: not known (nothing ran, or the plan lacks the check)
    role: bool | None
    suggestion: str | None  # the address the visitor probably meant

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        return cls(
            email=data["email"],
            verdict=data["verdict"],
            reason=data["reason"],
            disposable=data["disposable"],
            role=data["role"],
            suggestion=data["suggestion"],
        )


def throttled(email: str) -> Verdict:
    """The answer when nothing was validated: let the form go on."""
    return Verdict(email, UNKNOWN, "throttled", None, None, None)


def checker_degraded(result: Mapping[str, Any]) -> bool:
    """Whether the result says our checker reached no mail server at all (``services.probing.jobs.degraded``):
    it describes our prober's trouble, not the address."""
    return _metadata(result["checks"], "smtp").get("checkerDegraded") is True


def summarise(result: Mapping[str, Any]) -> Verdict:
    """The form's view of a validation result (spec 2.1, as stored)."""
    checks: Mapping[str, Any] = result["checks"]
    return Verdict(
        email=result["email"],
        verdict=result["severity"],
        reason=_reason(checks),
        disposable=_flag(checks, "disposable", "isDisposable"),
        role=_flag(checks, "roleBased", "isRole"),
        suggestion=_metadata(checks, "typoSuggestion").get("suggestedEmail"),
    )


def _reason(checks: Mapping[str, Any]) -> Reason | None:
    """A typo first when there is one: the visitor meant another address, so what this one's domain or
    mailbox says (a look-alike domain is often disposable-listed or dead) is beside the point."""
    if checks.get("syntax", {}).get("status") == "fail":
        return "syntax"
    if _metadata(checks, "typoSuggestion").get("suggestedEmail"):
        return "typo"
    return next((reason for reason in (_final(checks), _finding(checks), _doubt(checks)) if reason), None)


def _final(checks: Mapping[str, Any]) -> Reason | None:
    """What makes the address undeliverable, if anything."""
    if _metadata(checks, "domain").get("status") in _DOMAIN_GONE:
        return "no_mail_server"
    return _SMTP_FINAL.get(_metadata(checks, "smtp").get("verdict", ""))


def _finding(checks: Mapping[str, Any]) -> Reason | None:
    """What the page may want to act on although the address works."""
    if _flag(checks, "disposable", "isDisposable"):
        return "disposable"
    if _flag(checks, "roleBased", "isRole"):
        return "role"
    return None


def _doubt(checks: Mapping[str, Any]) -> Reason | None:
    """Why the mailbox could not be confirmed."""
    smtp = checks.get("smtp", {})
    if smtp.get("status") == "unknown":
        return "timeout" if smtp.get("metadata", {}).get("reason") in _TIMEOUTS else "unverified"
    if _metadata(checks, "catchAll").get("isCatchAll") is True:
        return "accept_all"
    return None


def _metadata(checks: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    metadata: Mapping[str, Any] = checks.get(name, {}).get("metadata", {})
    return metadata


def _flag(checks: Mapping[str, Any], name: str, field: str) -> bool | None:
    value = _metadata(checks, name).get(field)
    return value if isinstance(value, bool) else None
