"""No input string makes the engine raise: parse, assemble and verify (quick mode) always return a result."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maillab import MailLab
from verifier.dns import DomainStatus, MailDomain, MxRecord
from verifier.engine import Engine, Options, assemble
from verifier.results import Severity, ValidationResult
from verifier.syntax import (
    DEFAULT_POLICY,
    ParsedAddress,
    SyntaxFailure,
    SyntaxPolicy,
    parse_address,
    parse_input,
    result_email,
)

EVERYTHING = SyntaxPolicy(quoted_local=True, address_literal=True, dotless_domain=True, test_domains=True)
ANY_CHARACTER = st.characters(codec=None, exclude_categories=())  # surrogates and controls included
TRICKY = st.sampled_from(list('@."\\[]():;<>, \t\r\n\x00\x85\u00a0\u200b\u202e\ud800\udfff\uff20é例xn--IPv6'))
PIECE = st.text(st.one_of(ANY_CHARACTER, TRICKY), max_size=70)
ADDRESSISH = st.builds(lambda local, domain: f"{local}@{domain}", PIECE, PIECE)
INPUTS = st.one_of(
    st.text(ANY_CHARACTER, max_size=300), ADDRESSISH, st.from_regex(r"[a-z.+\"]{1,70}@[a-z0-9.-]{1,260}")
)
OPTIONS = st.builds(Options, quick_mode=st.booleans(), skip_catch_all=st.booleans())


@settings(deadline=None)  # no timed assertions: the first call loads the lists
@given(INPUTS)
def test_parse_never_raises(raw: str) -> None:
    for policy, parse in itertools.product((DEFAULT_POLICY, EVERYTHING), (parse_address, parse_input)):
        result = parse(raw, policy)
        assert isinstance(result, ParsedAddress | SyntaxFailure)
        if isinstance(result, SyntaxFailure):
            assert result.reason


@settings(deadline=None)
@given(INPUTS, OPTIONS)
def test_assemble_never_raises(raw: str, options: Options) -> None:
    parsed = parse_input(raw, EVERYTHING)
    if not isinstance(parsed, ParsedAddress):
        return
    mx = MxRecord(10, "mx." + parsed.ascii_domain.strip("[]"), ("192.0.2.1",))
    mail_domain = MailDomain(parsed.ascii_domain, DomainStatus.ACCEPTS_MAIL, (mx,))
    result = assemble(parsed, mail_domain, None, options)
    assert 0 <= result.score <= 100
    assert (result.to_dict()["input"], result.to_dict()["email"]) == (raw, result_email(raw))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(INPUTS, min_size=1, max_size=4))
def test_verify_in_quick_mode_never_raises(mail_lab: MailLab, raws: list[str]) -> None:
    engine = Engine(mail_lab.engine_config(), policy=EVERYTHING)
    results = engine.verify_many(raws, Options(quick_mode=True))
    assert len(results) == len(raws)
    assert all(isinstance(result, ValidationResult) for result in results)
    assert all((result.severity is Severity.INVALID) == (not result.is_valid) for result in results)
    for raw, result in zip(raws, results, strict=True):
        result.input.encode("utf-8")  # raises if a lone surrogate slipped into the JSON-bound result
        result.email.encode("utf-8")
        if not any("\ud800" <= char <= "\udfff" for char in raw):
            assert result.input == raw  # any text UTF-8 can carry comes back exactly as submitted
