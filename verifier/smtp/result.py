"""Verdicts drawn from classified evidence, per address and per domain group, JSON-able for Celery.

A verdict is drawn only here, from a ``Classification`` plus the provider's rules, so the step from
"what the server said" to "what we conclude" is one short, testable function (``judge``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from verifier.egress import DIRECT
from verifier.smtp.classify import Classification, ProbeOutcome
from verifier.smtp.evidence import ReplyEvidence
from verifier.smtp.providers import ProviderRules


class SmtpVerdict(StrEnum):
    DELIVERABLE = "deliverable"  # the server accepted RCPT (read with ``catch_all`` before trusting it)
    UNDELIVERABLE = "undeliverable"  # the mailbox does not exist
    FULL = "full"  # exists, over quota now
    DISABLED = "disabled"  # exists, disabled
    UNKNOWN = "unknown"  # no conclusion: see ``reason``, ``retryable``, ``prober_blocked``


_VERDICTS = {
    ProbeOutcome.ACCEPTED: SmtpVerdict.DELIVERABLE,
    ProbeOutcome.REJECTED_MAILBOX: SmtpVerdict.UNDELIVERABLE,
    ProbeOutcome.FULL: SmtpVerdict.FULL,
    ProbeOutcome.DISABLED: SmtpVerdict.DISABLED,
}
_RETRYABLE = {ProbeOutcome.TEMPORARY, ProbeOutcome.NO_ANSWER}


@dataclass(frozen=True, slots=True)
class AddressProbe:
    """What the SMTP probe concluded about one address, with the reply that decided it."""

    address: str
    outcome: ProbeOutcome
    verdict: SmtpVerdict
    reason: str
    evidence: ReplyEvidence | None = None
    retryable: bool = False
    retry_after: int | None = None
    prober_blocked: bool = False
    blocked: bool = False  # the server refused the egress that asked (``classify.blocks``)
    egress_fault: bool = False  # the egress failed: not asked at all

    @property
    def unsettled(self) -> bool:
        """Another egress might answer differently: this probe's egress failed or was blocked."""
        return self.blocked or self.egress_fault

    @property
    def smtp_response(self) -> str:
        """Spec ``smtp.metadata.smtpResponse``: code + enhanced code + text of the deciding reply."""
        return self.evidence.smtp_response if self.evidence else self.reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "outcome": self.outcome.value,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "evidence": self.evidence.to_dict() if self.evidence else None,
            "retryable": self.retryable,
            "retryAfter": self.retry_after,
            "proberBlocked": self.prober_blocked,
            "blocked": self.blocked,
            "egressFault": self.egress_fault,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AddressProbe:
        evidence = data.get("evidence")
        return cls(
            address=data["address"],
            outcome=ProbeOutcome(data["outcome"]),
            verdict=SmtpVerdict(data["verdict"]),
            reason=data["reason"],
            evidence=ReplyEvidence.from_dict(evidence) if evidence else None,
            retryable=bool(data["retryable"]),
            retry_after=data.get("retryAfter"),
            prober_blocked=bool(data["proberBlocked"]),
            blocked=bool(data.get("blocked", False)),
            egress_fault=bool(data.get("egressFault", False)),
        )


def judge(
    address: str, found: Classification, evidence: ReplyEvidence | None, rules: ProviderRules
) -> AddressProbe:
    """Draw the verdict. An acceptance by a provider that accepts everything at RCPT proves nothing."""
    verdict = _VERDICTS.get(found.outcome, SmtpVerdict.UNKNOWN)
    reason = found.reason
    if verdict is SmtpVerdict.DELIVERABLE and rules.accepts_all_at_rcpt:
        verdict, reason = SmtpVerdict.UNKNOWN, "provider_accepts_all"
    return AddressProbe(
        address=address,
        outcome=found.outcome,
        verdict=verdict,
        reason=reason,
        evidence=evidence,
        retryable=found.outcome in _RETRYABLE,
        retry_after=found.retry_after,
        prober_blocked=found.prober_blocked,
        blocked=found.blocked,
        egress_fault=found.egress_fault,
    )


@dataclass(frozen=True, slots=True)
class DomainProbeResult:
    """The probe of one domain group: per-address verdicts, the domain's catch-all verdict, and cost.

    ``catch_all`` is True only when a random address was accepted, False when one (or a real address)
    was rejected as unknown, None when that could not be learnt (4xx, block, timeout, accept-all provider).
    ``unreachable`` means no MX host answered at all: many of those at once point at our own network
    (outbound port 25 closed), which the engine should report as degraded rather than as invalid.
    """

    domain: str
    provider: str
    results: tuple[AddressProbe, ...]
    catch_all: bool | None
    catch_all_probe: AddressProbe | None
    sessions_opened: int
    unreachable: bool
    transcript: tuple[ReplyEvidence, ...] = ()
    egress: str = DIRECT.id  # the id of the egress whose sessions asked (``verifier/egress.py``)
    # each address's probe by address: a group's every address asks for its own several times while its
    # result is assembled, and a scan of the group each time grew with the square of the group
    _by_address: dict[str, AddressProbe] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_address", {result.address: result for result in self.results})

    def __getitem__(self, address: str) -> AddressProbe:
        return self._by_address[address]

    def get(self, address: str) -> AddressProbe | None:
        return self._by_address.get(address)

    def to_dict(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "provider": self.provider,
            "results": [result.to_dict() for result in self.results],
            "catchAll": self.catch_all,
            "catchAllProbe": self.catch_all_probe.to_dict() if self.catch_all_probe else None,
            "sessionsOpened": self.sessions_opened,
            "unreachable": self.unreachable,
            "transcript": [item.to_dict() for item in self.transcript],
            "egress": self.egress,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DomainProbeResult:
        probe = data.get("catchAllProbe")
        return cls(
            domain=data["domain"],
            provider=data["provider"],
            results=tuple(AddressProbe.from_dict(item) for item in data["results"]),
            catch_all=data["catchAll"],
            catch_all_probe=AddressProbe.from_dict(probe) if probe else None,
            sessions_opened=int(data["sessionsOpened"]),
            unreachable=bool(data["unreachable"]),
            transcript=tuple(ReplyEvidence.from_dict(item) for item in data["transcript"]),
            egress=data.get("egress", DIRECT.id),
        )
