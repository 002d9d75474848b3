"""Conformance of ``parse_address`` with the labelled public corpora in ``../shared/corpora``.

Every address entry of every file (the isemail diagnosis code table excepted) is one test. Each test checks
the verdicts the corpora README asks for under three policies:

* STRICT: every optional form off, ASCII only;
* DEFAULT: the service's policy (``DEFAULT_POLICY``: optional forms off, SMTPUTF8 and IDN on);
* PERMISSIVE: every optional RFC 5321 / RFC 6531 form on.

README verdicts map to (STRICT, DEFAULT, PERMISSIVE) as: accept -> all accepted, reject -> none accepted,
optional -> refused by STRICT and accepted by PERMISSIVE (and by DEFAULT when the only optional feature is
non-ASCII text, which our default enables). Files labelled with an upstream validator's own options
(python-email-validator, hapi-address) are checked under those options mapped to a ``SyntaxPolicy``.

Entries we do not honour are in ``DEVIATIONS`` with the verdicts we give and why (also in
docs/decisions.md), so a change of behaviour on them fails the test as well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from verifier.syntax import DEFAULT_POLICY, ParsedAddress, SyntaxPolicy, parse_address

CORPORA = Path(os.environ.get("VERIMAIL_CORPORA", Path(__file__).parents[3] / "shared" / "corpora"))
STRICT = SyntaxPolicy(smtputf8=False, unicode_domain=False)
PERMISSIVE = SyntaxPolicy(quoted_local=True, address_literal=True, dotless_domain=True)
THREE = (STRICT, DEFAULT_POLICY, PERMISSIVE)
ACCEPT, REJECT = (True, True, True), (False, False, False)
OPTIONAL, OPTIONAL_UNICODE = (False, False, True), (False, True, True)

# Warning-free egulias "valid" rows that RFC 5321 refuses (the README names the first four).
EGULIAS_RFC5322_ONLY = {
    "example((example))@fakedfake.co.uk": "comment",
    "fab\\ ien@symfony.com": "quoted-pair outside quotes",
    "example@localhost": "dotless special-use name",
    "validipv4@127.0.0.0": "unbracketed IP",
    "example@faked(fake).co.uk": "comment in the domain",
}
# egulias warnings that mark RFC 5322-only syntax (comments, folding white space, obsolete or bad literals).
RFC5322_ONLY_WARNINGS = {
    "CFWSNearAt",
    "Comment",
    "CFWSWithFWS",
    "LocalTooLong",
    "ObsoleteDTEXT",
    "DomainLiteral",
    "IPV6Deprecated",
    "IPV6MaxGroups",
    "IPV6DoubleColon",
    "IPV6ColonStart",
    "IPV6BadChar",
    "IPV6ColonEnd",
    "IPV6GroupCount",
}

# (file, email) -> (verdicts we give, why). Verdicts are in the order of the row's policies.
EMPTY_QUOTED = "empty quoted local part: no mailbox has an empty name (python-email-validator refuses it too)"
DISPLAY_NAME = "display names ('Name <addr>') are refused: the API takes a bare address for RCPT TO"
LONG_LOCAL = "local parts over 64 octets are always refused (RFC 5321 4.5.3.1.1); no lenient mode"
EMPTY_LOCAL = "empty local parts are never accepted"
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
TLD_LIST = "no TLD allow/deny lists at the syntax stage: DNS decides whether a TLD exists"
DEVIATIONS: dict[tuple[str, str], tuple[tuple[bool, ...], str]] = {
    ("isemail.jsonl", '""@iana.org'): (REJECT, EMPTY_QUOTED),
    ("isemail-hapi.jsonl", '""@iana.org'): (REJECT, EMPTY_QUOTED),
    ("egulias-emailvalidator.jsonl", '""@iana.org'): (REJECT, EMPTY_QUOTED),
    ("egulias-emailvalidator.jsonl", "examp\u2551le@symfony.com"): (
        OPTIONAL_UNICODE,
        "RFC 6531 atext takes any non-ASCII UTF-8, box-drawing symbols included; egulias refuses symbols",
    ),
    ("egulias-emailvalidator.jsonl", "example@sym\u0192ony.com"): (
        OPTIONAL_UNICODE,
        "U+0192 is a letter IDNA 2008 encodes (xn--symony-5tb.com); the upstream test is skipped",
    ),
    ("json-schema-test-suite.jsonl", "\x85@example.com"): (
        REJECT,
        "control characters (C1 included) are refused everywhere: RFC 5321 has none, they hide in logs",
    ),
    ("json-schema-test-suite.jsonl", "\uffff@example.com"): (
        REJECT,
        "Unicode noncharacters are refused as unsafe (email-validator's rule): no mailbox uses them",
    ),
    ("python-email-validator.jsonl", "MyName <me@example.org>"): ((False,), DISPLAY_NAME),
    ("python-email-validator.jsonl", "My Name <me@example.org>"): ((False,), DISPLAY_NAME),
    ("python-email-validator.jsonl", '"My.\\"Na\\\\me\\".Is" <"me \\" \\\\ me"@example.org>'): (
        (False,),
        DISPLAY_NAME,
    ),
    ("python-email-validator.jsonl", '"s\u0323\u0307" <s\u0323\u0307@nfc.tld>'): (
        (False, False),
        DISPLAY_NAME,
    ),
    (
        "python-email-validator.jsonl",
        "11111111112222222222333333333344444444445555555555666666666677777@example.com",
    ): ((False, False), LONG_LOCAL),
    (
        "python-email-validator.jsonl",
        "111111111122222222223333333333444444444455555555556666666666777777@example.com",
    ): ((False, False), LONG_LOCAL),
    (
        "python-email-validator.jsonl",
        "\ufb2c111111122222222223333333333444444444455555555556666666666777777@example.com",
    ): ((False, False), LONG_LOCAL),
    ("python-email-validator.jsonl", "@test"): ((False,), EMPTY_LOCAL),
    ("python-email-validator.jsonl", '""@test'): ((False,), EMPTY_LOCAL),
    ("python-email-validator.jsonl", "test@[IPv6:1111:2222:3333:4444:5555:6666::8888]"): (
        (False, False),
        "'::' standing for one group is RFC 5321-invalid (README: IPV6DEPRECATED is reject)",
    ),
    ("hapi-address.jsonl", "test@x.no-such-tld"): ((True,), TLD_LIST),
    ("hapi-address.jsonl", "test@example.com"): ((True,), TLD_LIST),
    ("hapi-address.jsonl", "apple-touch-icon-60x60@2x.png"): ((True,), TLD_LIST),
    ("hapi-address.jsonl", "test@" + "\U0001f606" * 17 + ".org"): (
        (False,),
        "emoji are not IDNA 2008 code points: such a domain cannot be registered or resolved",
    ),
    ("hapi-address.jsonl", "1234567890" + ALPHABET * 9 + "abcdefghijklmnopqrstuvw@xyz.com"): (
        (False,),
        "length limits are always enforced (hapi's ignoreLength has no counterpart)",
    ),
}


@dataclass(frozen=True)
class Case:
    """One corpus entry: the address and the verdict expected under each policy."""

    file: str
    line: int
    email: str
    policies: tuple[SyntaxPolicy, ...]
    expected: tuple[bool, ...]

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def _rows(name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    with (CORPORA / name).open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            yield number, json.loads(line)


def _email(row: dict[str, Any]) -> str:
    """Rows that are not UTF-8 arrive as they would through a lenient decoder: with lone surrogates."""
    if row.get("email") is None:
        return bytes.fromhex(row["email_bytes_hex"]).decode("utf-8", errors="surrogateescape")
    return str(row["email"])


def _recommended(row: dict[str, Any]) -> tuple[bool, ...]:
    """isemail, isemail-hapi and rfc3696 carry the README's own ``recommended_verdict``."""
    verdict, why = row["recommended_verdict"], row.get("verdict_reason") or ""
    if verdict != "optional":
        return ACCEPT if verdict == "accept" else REJECT
    if "strict validators reject" in why:
        return REJECT  # optional rows the README itself expects a strict validator to refuse
    return OPTIONAL_UNICODE if "non-ASCII" in why else OPTIONAL


def _broad(row: dict[str, Any]) -> tuple[bool, ...]:
    """egulias and JSON Schema: valid means accept or optional (README), invalid means reject."""
    email, warnings = _email(row), set(row.get("expected_warnings") or ())
    if not row["valid"] or email in EGULIAS_RFC5322_ONLY or warnings & RFC5322_ONLY_WARNINGS:
        return REJECT
    if email.startswith('"') or "@[" in email or "TLD" in warnings:
        return OPTIONAL
    return ACCEPT if email.isascii() else OPTIONAL_UNICODE


def _email_validator_policy(options: dict[str, Any]) -> SyntaxPolicy:
    """python-email-validator options as a policy. We are always strict and never take display names."""
    return replace(
        DEFAULT_POLICY,
        quoted_local=options.get("allow_quoted_local", False),
        address_literal=options.get("allow_domain_literal", False),
        smtputf8=options.get("allow_smtputf8", True),
        test_domains=options.get("test_environment", False),
    )


def _hapi_policy(options: dict[str, Any]) -> SyntaxPolicy:
    """@hapi/address options as a policy; its TLD allow/deny lists have no counterpart (DNS decides)."""
    unicode = options.get("allowUnicode", True)
    dotless = options.get("minDomainSegments", 2) < 2
    return replace(DEFAULT_POLICY, smtputf8=unicode, unicode_domain=unicode, dotless_domain=dotless)


def _cases_with_three_policies(name: str, expect: Any) -> Iterator[Case]:
    for line, row in _rows(name):
        yield Case(name, line, _email(row), THREE, expect(row))


def _email_validator_cases() -> Iterator[Case]:
    name = "python-email-validator.jsonl"
    for line, row in _rows(name):
        verdicts = [(row["options"], row["valid"])]
        verdicts += [(other["options"], other["valid"]) for other in row.get("other_verdicts") or ()]
        policies = tuple(_email_validator_policy(options) for options, _ in verdicts)
        yield Case(name, line, _email(row), policies, tuple(valid for _, valid in verdicts))


def _hapi_address_cases() -> Iterator[Case]:
    name = "hapi-address.jsonl"
    for line, row in _rows(name):
        yield Case(name, line, _email(row), (_hapi_policy(row["options"]),), (row["valid"],))


def _all_cases() -> Iterator[Case]:
    if not CORPORA.is_dir():
        raise RuntimeError(f"corpora not found at {CORPORA}; set VERIMAIL_CORPORA")
    for name in ("isemail.jsonl", "isemail-hapi.jsonl", "rfc3696.jsonl"):
        yield from _cases_with_three_policies(name, _recommended)
    for name in ("egulias-emailvalidator.jsonl", "json-schema-test-suite.jsonl"):
        yield from _cases_with_three_policies(name, _broad)
    yield from _email_validator_cases()
    yield from _hapi_address_cases()


CASES = list(_all_cases())


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_corpus_entry_gets_the_expected_verdict(case: Case) -> None:
    verdicts = tuple(isinstance(parse_address(case.email, policy), ParsedAddress) for policy in case.policies)
    expected, why = DEVIATIONS.get((case.file, case.email), (case.expected, "as labelled"))
    assert verdicts == expected, f"{case.email!r}: {why}"


def test_every_corpus_file_is_covered() -> None:
    files = {path.name for path in CORPORA.glob("*.jsonl")} - {"isemail-diagnoses.jsonl"}
    assert files == {case.file for case in CASES}
    assert len(CASES) == 1436  # the README's total of address entries
