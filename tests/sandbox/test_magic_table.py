"""The sandbox engine: every magic address gives its outcome, judged by the real checks and scoring."""

from __future__ import annotations

from typing import Any

import pytest

from verifier import sandbox
from verifier.engine import Options
from verifier.syntax import ParsedAddress, parse_input

# The table of docs/sandbox.md: the local part's outcome as (isValid, severity, check, metadata key, value).
OUTCOMES: dict[str, tuple[bool, str, str, str, Any]] = {
    "deliverable": (True, "valid", "smtp", "verdict", "deliverable"),
    "undeliverable": (False, "invalid", "smtp", "verdict", "undeliverable"),
    "catch-all": (True, "warning", "catchAll", "isCatchAll", True),
    "disposable": (True, "warning", "disposable", "isDisposable", True),
    "role": (True, "warning", "roleBased", "isRole", True),
    "free": (True, "valid", "freeEmail", "isFree", True),
    "typo": (True, "valid", "typoSuggestion", "suggestion", "example.com"),
    "full": (True, "warning", "smtp", "verdict", "full"),
    "disabled": (False, "invalid", "smtp", "verdict", "disabled"),
    "greylisted": (True, "warning", "smtp", "retryAfter", sandbox.GREYLIST_SECONDS),
    "timeout": (True, "warning", "smtp", "reason", "timeout"),
    "blocked": (True, "warning", "smtp", "proberBlocked", True),
    "no-domain": (False, "invalid", "domain", "status", "nxdomain"),
}


def parsed(address: str) -> ParsedAddress:
    item = parse_input(address)
    assert isinstance(item, ParsedAddress)
    return item


def test_the_table_names_every_documented_outcome() -> None:
    assert set(sandbox.MAGIC) == set(OUTCOMES)


@pytest.mark.parametrize("local", sorted(OUTCOMES))
def test_each_magic_address_has_its_outcome_at_any_domain_and_tag(local: str) -> None:
    is_valid, severity, check, key, value = OUTCOMES[local]

    result: Any = sandbox.result(parsed(f"{local.upper()}+7@example.net"), Options()).to_dict()

    assert (result["isValid"], result["severity"]) == (is_valid, severity)
    assert result["checks"][check]["metadata"][key] == value


def test_greylisted_is_deliverable_when_asked_again() -> None:
    address = parsed("greylisted@example.net")

    first, again = (sandbox.result(address, Options(), attempt=n) for n in (1, 2))

    assert sandbox.retry_after(address, Options(), attempt=1) == sandbox.GREYLIST_SECONDS
    assert first.severity.value == "warning"
    assert (again.severity.value, sandbox.retry_after(address, Options(), attempt=2)) == ("valid", None)


def test_another_address_is_unknown_and_says_it_is_not_magic() -> None:
    result: Any = sandbox.result(parsed("jane@example.net"), Options()).to_dict()

    assert result["checks"]["smtp"]["status"] == "unknown"
    assert result["checks"]["smtp"]["metadata"]["reason"] == sandbox.NOT_MAGIC
    assert sandbox.NOT_MAGIC_ADVICE in result["recommendations"]


def test_quick_mode_skips_the_smtp_check_in_the_sandbox_too() -> None:
    result: Any = sandbox.result(parsed("undeliverable@example.net"), Options(quick_mode=True)).to_dict()

    assert "smtp" not in result["checks"]
    assert result["checks"]["domain"]["metadata"]["mxRecords"] == [sandbox.SANDBOX_MX]
