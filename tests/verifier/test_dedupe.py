"""The de-duplication key of a list: rows it joins are one address (one verdict, one charge), and it never
joins two addresses the engine would judge apart, checked over every address of the public corpora."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from verifier.dedupe import address_key
from verifier.syntax import ParsedAddress, SyntaxPolicy, parse_input

CORPORA = Path(os.environ.get("VERIMAIL_CORPORA", Path(__file__).parents[3] / "shared" / "corpora"))
POLICIES = (SyntaxPolicy(), SyntaxPolicy(quoted_local=True, address_literal=True, dotless_domain=True))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("john@example.com", " John@Example.COM\t"),
        ("john@example.com", "\ufeffjohn@example.com\u00a0\u200b"),
        ("jörg@münchen.de", "Jörg@XN--MNCHEN-3YA.de"),
        ("jörg@münchen.de", "jo\u0308rg@münchen.de"),  # the same letter, decomposed (NFC)
        ("not an address", " Not An Address "),
    ],
)
def test_the_same_address_written_differently_has_one_key(first: str, second: str) -> None:
    assert address_key(first) == address_key(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("john@example.com", "john@example.org"),
        ("john@example.com", "jo hn@example.com"),  # blanks inside are not trimmed: another (invalid) entry
        ("john.doe@example.com", "johndoe@example.com"),  # dots are the mailbox's business, not ours
        ("john+news@example.com", "john@example.com"),
    ],
)
def test_different_addresses_keep_different_keys(first: str, second: str) -> None:
    assert address_key(first) != address_key(second)


def corpus_inputs() -> list[str]:
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not found at {CORPORA}")
    found = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            email = json.loads(line).get("email")
            if isinstance(email, str):
                found += [email, email.upper(), f" {email.lower()}\u00a0"]
    return found


@pytest.mark.parametrize("policy", POLICIES, ids=["service policy", "every RFC form"])
def test_rows_joined_by_the_key_always_parse_to_one_address(policy: SyntaxPolicy) -> None:
    verdicts: dict[str, set[str | None]] = defaultdict(set)
    for raw in corpus_inputs():
        parsed = parse_input(raw, policy)
        verdicts[address_key(raw)].add(parsed.email if isinstance(parsed, ParsedAddress) else None)
    joined_apart = {key: seen for key, seen in verdicts.items() if len(seen) > 1}
    assert joined_apart == {}
