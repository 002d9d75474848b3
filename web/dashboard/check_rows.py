"""A validation result's checks as the Validate page lists them: a readable name, one state, one statement.

The result is the API's JSON (spec 2.1, 2.2). A check's ``status`` says what ``passed: false`` alone cannot:
``skipped`` (nothing to ask) and ``unknown`` (no conclusion) are neither a pass nor a failure, so the page
shows that word alone; ``fail`` is the syntax check's failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from verifier.results import CheckName, JsonValue
from web.dashboard.names import human_name

STATES = {"skipped": "skipped", "unknown": "unknown", "fail": "failed"}
RUN_ORDER = {name.value: position for position, name in enumerate(CheckName)}


@dataclass(frozen=True)
class CheckRow:
    name: str
    state: str  # passed, failed, skipped or unknown
    statement: str
    evidence: Mapping[str, JsonValue]


def check_rows(result: Mapping[str, JsonValue] | None) -> list[CheckRow]:
    """One row per check of ``result`` (none without a result), in the order the engine runs them: a
    result read back from Postgres has its keys in JSONB's order (shortest first), which means nothing."""
    checks = result.get("checks") if result else None
    if not isinstance(checks, dict):
        return []
    return [
        _row(name, check) for name, check in sorted(checks.items(), key=_run_order) if isinstance(check, dict)
    ]


def _row(name: str, check: Mapping[str, JsonValue]) -> CheckRow:
    state = _state(check)
    metadata = check.get("metadata")
    # A skipped check's metadata only repeats that it was not checked.
    evidence = metadata if isinstance(metadata, dict) and state != "skipped" else {}
    return CheckRow(human_name(name), state, _statement(check), evidence)


def _run_order(item: tuple[str, JsonValue]) -> int:
    return RUN_ORDER.get(item[0], len(RUN_ORDER))


def _state(check: Mapping[str, JsonValue]) -> str:
    status = check.get("status")
    if isinstance(status, str) and status in STATES:
        return STATES[status]
    return "passed" if check.get("passed") else "failed"


def _statement(check: Mapping[str, JsonValue]) -> str:
    """The message, and the reason only where the message does not already say it."""
    message, reason = str(check.get("message") or ""), str(check.get("reason") or "")
    if not reason or reason.lower() in message.lower():
        return message
    return f"{message.rstrip('.')}: {reason}."
