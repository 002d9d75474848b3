"""An address at a domain the parser has seen reuses that domain's validation (``DOMAIN_MEMO``): it must
parse exactly as the library alone parses it, verdict, normal forms and reason alike."""

from __future__ import annotations

import pytest

from tests.verifier.test_corpora import CASES, Case
from verifier.syntax import DEFAULT_POLICY, DOMAIN_MEMO, ParsedAddress, SyntaxFailure, parse_address


def _alone(raw: str) -> ParsedAddress | SyntaxFailure:
    DOMAIN_MEMO.clear()
    return parse_address(raw)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_corpus_address_parses_the_same_once_its_domain_is_known(case: Case) -> None:
    domain = case.email.rpartition("@")[2]
    for policy in case.policies:
        DOMAIN_MEMO.clear()
        alone = parse_address(case.email, policy)
        parse_address(f"seed@{domain}", policy)
        assert parse_address(case.email, policy) == alone, case.email


LONG_DOMAIN = ".".join(["a" * 63] * 3) + ".com"  # 195 characters: room for a 58-character local part


@pytest.mark.parametrize(
    "raw",
    [
        "Jane.Doe+news@Example.COM",
        "x" * 64 + "@example.com",
        "x" * 65 + "@example.com",  # one over the local part's limit: the library's own reason
        "y" * 58 + "@" + LONG_DOMAIN,  # 254 characters in all: the longest address
        "y" * 59 + "@" + LONG_DOMAIN,  # 255: refused for its length
        "postmaster@example.com",
        "a..b@example.com",
        ".a@example.com",
        "jörg@bücher.example",
        "user@bücher.example",
        "user@xn--bcher-kva.example",
    ],
)
def test_an_address_at_a_known_domain_parses_as_the_library_alone_parses_it(raw: str) -> None:
    alone = _alone(raw)
    parse_address("seed@" + raw.rpartition("@")[2], DEFAULT_POLICY)
    assert (parse_address(raw), bool(DOMAIN_MEMO)) == (alone, True)
