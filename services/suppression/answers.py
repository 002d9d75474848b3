"""A suppressed address's answer: invalid at once, with ``metadata.reason`` ``suppressed`` and the evidence.

The same answer is built wherever the address meets validation (quickMode in the web process, a job's
planning for single, batch and bulk), before any DNS or SMTP: the list is the sender's own evidence, which
no probe could overturn (Yahoo and AOL accept every RCPT of a closed account). It is stored marked as no
verdict of ours (``stamped(verdict=False)``), so it is never reused as a recent verdict once the address
leaves the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.times import iso
from services.jobs.options import stamped
from verifier import checks
from verifier.results import JsonValue, Severity, ValidationResult
from verifier.syntax import ParsedAddress, result_email

REASON = "suppressed"


@dataclass(frozen=True)
class Evidence:
    """Why an address is on the list: what said so, when, with which diagnostic code."""

    email: str  # as the evidence named it
    kind: str
    source: str
    diagnostic_code: str | None
    bounced_at: datetime
    suppressed_at: datetime

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "email": self.email,
            "kind": self.kind,
            "source": self.source,
            "diagnosticCode": self.diagnostic_code,
            "bouncedAt": iso(self.bounced_at),
            "suppressedAt": iso(self.suppressed_at),
        }


def suppressed_result(raw: str, parsed: ParsedAddress, evidence: Evidence, now: datetime) -> dict[str, Any]:
    """The stored answer to ``raw`` (parsed as ``parsed``), suppressed by ``evidence``."""
    advice = (
        f"Do not send to this address: it is on your suppression list ({_said(evidence)}). Remove it from "
        "the list if that was a mistake."
    )
    result = ValidationResult(
        result_email(raw),
        False,
        0,
        Severity.INVALID,
        {"syntax": checks.syntax_passed(parsed)},
        (advice,),
        input=raw,
    )
    stored: dict[str, Any] = stamped(result.to_dict(), now, verdict=False)
    stored["metadata"] = {**stored["metadata"], "reason": REASON, "suppression": evidence.to_json()}
    return stored


def _said(evidence: Evidence) -> str:
    what = {"hard": "a hard bounce", "complaint": "a complaint", "manual": "added by hand"}.get(
        evidence.kind, evidence.kind
    )
    return f"{what}, {evidence.source}, {iso(evidence.bounced_at)}"
