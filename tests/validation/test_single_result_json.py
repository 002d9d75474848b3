"""The answer of ``POST /validate`` is written without building ``SingleResultOut``: the bytes must be the
ones the model writes, for every shape a result takes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from core.times import iso
from verifier.engine import syntax_failure_result
from verifier.results import CheckName, CheckResult, Severity, ValidationResult
from verifier.syntax import SyntaxFailure
from web.schemas.results import SingleResultOut
from web.schemas.single_result import single_result_json

OWN_BRAND = {
    "provider": "verimail",
    "support": "support@verimail.localhost",
    "documentation": "https://d.test",
}
# An answer from the suppression list: its reason and evidence (absent from every other answer).
SUPPRESSED = {
    "reason": "suppressed",
    "suppression": {
        "email": "Bob@A.test",
        "kind": "hard",
        "source": "ses",
        "diagnosticCode": "smtp; 550 5.1.1 user unknown",
        "bouncedAt": "2026-02-27T10:00:00.000Z",
        "suppressedAt": "2026-02-27T10:00:01.000Z",
    },
}
RESELLER = {"provider": "Acme Mail", "support": "help@acme.test", "documentation": "https://acme.test/docs"}


def judged() -> dict[str, Any]:
    # Keyed by the engine's StrEnum names, as ``assemble`` keys them.
    checks: dict[str, CheckResult] = {
        CheckName.SYNTAX: CheckResult("syntax", True, "Well formed.", {"localPart": "bob"}),
        CheckName.DOMAIN: CheckResult("domain", True, "Accepts mail.", {"mxRecords": ["mx.a.test"]}),
        CheckName.SMTP: CheckResult(
            "smtp", False, "Greylisted.", {"verdict": "unknown", "retryAfter": 300}, "unknown", "greylisted"
        ),
        CheckName.ROLE_BASED: CheckResult("roleBased", True, "Not a role.", {"confidence": 0.25}),
    }
    result = ValidationResult(
        "Bob@A.test", True, 72, Severity.VALID, checks, ("Retry later.",), input=" Bob@A.test "
    )
    return result.to_dict()


def metadata(brand: dict[str, str], at: datetime, country: str | None) -> dict[str, Any]:
    """As ``web.api.validate.metadata`` writes it: the timestamp already in the one wire format."""
    stamp = iso(at)
    return {"processingTime": 3, "timestamp": stamp, "ipAddress": "203.0.113.9", "country": country, **brand}


@pytest.mark.parametrize(
    ("result", "request_metadata"),
    [
        (judged(), metadata(OWN_BRAND, datetime(2026, 3, 1, 12, 0, 0, 120, tzinfo=UTC), None)),
        (judged(), metadata(RESELLER, datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC), "FR")),
        (
            syntax_failure_result("no-at-sign", SyntaxFailure("No @-sign.")).to_dict(),
            metadata(OWN_BRAND, datetime(2026, 3, 1, 23, 59, 59, 999999, tzinfo=UTC), None),
        ),
        (
            judged() | {"retrying": True, "resultsUrl": "https://api.test/batches/b_1/results"},
            metadata(OWN_BRAND, datetime(2026, 3, 1, tzinfo=UTC), None),
        ),
        (judged(), metadata(OWN_BRAND, datetime(2026, 3, 1, tzinfo=UTC), None) | SUPPRESSED),
    ],
    ids=["judged", "white-label", "syntax-failure", "retrying", "suppressed"],
)
def test_the_answer_is_byte_for_byte_the_models(
    result: dict[str, Any], request_metadata: dict[str, Any]
) -> None:
    model = SingleResultOut.model_validate({**result, "metadata": request_metadata})

    assert single_result_json(result, request_metadata).decode() == model.model_dump_json(by_alias=True)


def test_a_result_missing_a_required_field_is_refused_as_the_model_would() -> None:
    incomplete = {key: value for key, value in judged().items() if key != "score"}

    with pytest.raises(KeyError):
        single_result_json(incomplete, metadata(OWN_BRAND, datetime(2026, 3, 1, tzinfo=UTC), None))
