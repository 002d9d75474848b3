"""Which answers are authoritative (docs/decisions.md): only a settled result of a finished check; not one
drawn as the time budget ran out, an interim one while retries go on, or one from a checker that reached no
mail server. The throttled answers are covered over HTTP (``test_verdict_tokens``)."""

from __future__ import annotations

import pytest

from services.browser.validation import authoritative
from services.validation.answers import Single
from verifier.results import JsonValue


def settled(*, smtp_unknown: bool = False, degraded: bool = False) -> dict[str, JsonValue]:
    smtp: dict[str, JsonValue] = {"status": "unknown" if smtp_unknown else "pass"}
    smtp["metadata"] = {"verdict": "unknown" if smtp_unknown else "deliverable", "checkerDegraded": degraded}
    return {"email": "bob@mailbox.test", "severity": "valid", "checks": {"smtp": smtp}}


@pytest.mark.parametrize(
    ("single", "expected"),
    [
        (Single("val_1", settled()), True),
        (Single("val_1", settled(smtp_unknown=True)), True),  # the mail server would not say: still final
        (Single("val_1", settled(), timed_out=True), False),
        (Single("val_1", settled(smtp_unknown=True), retrying=True), False),
        (Single("val_1", settled(smtp_unknown=True, degraded=True)), False),
    ],
)
def test_only_a_finished_checks_settled_result_is_authoritative(single: Single, expected: bool) -> None:
    assert authoritative(single) is expected
