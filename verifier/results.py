"""Result types of the engine, shaped like spec 2.1 (validation result) and 2.2 (check result).

These are plain frozen dataclasses so that every layer (CLI, web, workers, the SMTP prober) can build and
read them without importing anything else from the engine. Check names and metadata keys are kept in the
spec's own camelCase spelling, so ``to_dict()`` is a straight copy and a reader can grep one name from the
JSON down to the code that sets it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeAlias

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
Metadata: TypeAlias = Mapping[str, JsonValue]

VALID_FROM = 70
WARNING_FROM = 40


class Severity(StrEnum):
    """Severity class of spec 2.1, derived from the score only."""

    VALID = "valid"
    WARNING = "warning"
    INVALID = "invalid"

    @classmethod
    def from_score(cls, score: int) -> Severity:
        """70-100 valid, 40-69 warning, 0-39 invalid (spec 2.1)."""
        if score >= VALID_FROM:
            return cls.VALID
        if score >= WARNING_FROM:
            return cls.WARNING
        return cls.INVALID


class CheckName(StrEnum):
    """Check names as they appear as keys of ``checks`` (spec 2.2)."""

    SYNTAX = "syntax"
    DOMAIN = "domain"
    DISPOSABLE = "disposable"
    ROLE_BASED = "roleBased"
    SMTP = "smtp"
    CATCH_ALL = "catchAll"
    FREE_EMAIL = "freeEmail"
    CORPORATE_EMAIL = "corporateEmail"
    TYPO_SUGGESTION = "typoSuggestion"
    MAILBOX_PROVIDER = "mailboxProvider"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome (spec 2.2). ``status``/``reason`` are left out for a plain pass or finding; they
    say ``fail`` (syntax), ``skipped`` (nothing to ask) or ``unknown`` (asked, no conclusion) and why."""

    check: str
    passed: bool
    message: str
    metadata: Metadata = field(default_factory=dict)
    status: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, JsonValue]:
        """The spec 2.2 JSON object; optional fields are left out rather than sent as null."""
        body: dict[str, JsonValue] = {
            "check": self.check,
            "passed": self.passed,
            "message": self.message,
            "metadata": dict(self.metadata),
        }
        if self.status is not None:
            body["status"] = self.status
        if self.reason is not None:
            body["reason"] = self.reason
        return body


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The engine's verdict on one address (spec 2.1 without the request ``metadata``, which the web adds).

    ``input`` echoes the text exactly as submitted, so a client can match results to its rows (lone
    surrogates, which no UTF-8 JSON can carry, are the only change: backslash-escaped); ``email`` is that
    text trimmed and lowercased, the domain in the form it was written (``verifier.syntax.result_email``:
    ``John@Example.COM`` gives ``john@example.com``; an ``xn--`` domain stays one, a Unicode one stays
    Unicode). The normalised forms are in the syntax check's metadata.
    """

    email: str
    is_valid: bool
    score: int
    severity: Severity
    checks: Mapping[str, CheckResult]
    recommendations: tuple[str, ...] = ()
    input: str = field(kw_only=True)

    def to_dict(self) -> dict[str, JsonValue]:
        """The spec 2.1 JSON object in camelCase, checks in the order they were run."""
        return {
            "isValid": self.is_valid,
            "input": self.input,
            "email": self.email,
            "score": self.score,
            "severity": self.severity.value,
            "checks": {name: check.to_dict() for name, check in self.checks.items()},
            "recommendations": list(self.recommendations),
        }
