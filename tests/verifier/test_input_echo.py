"""Blanks around an address are trimmed before judging; a result echoes its input, and its ``email`` is the
address trimmed and in lowercase (spec 2.1), the domain in the form it was typed."""

from __future__ import annotations

import json

import pytest

from maillab import MailLab
from verifier.engine import Engine
from verifier.results import ValidationResult
from verifier.syntax import SyntaxPolicy

PADDED = [
    " alice@mailbox.test ",
    "\talice@mailbox.test\r\n",
    "\u00a0alice@mailbox.test\u00a0",  # NBSP, from a web page or a word processor
    "\u200balice@mailbox.test\u200c",  # zero-width space and non-joiner
    "alice@mailbox.test\u200d\u2060",  # zero-width joiner and word joiner
    "\ufeffalice@mailbox.test",  # a BOM at the start of a CSV file
    "\u3000\u2003alice@mailbox.test\u202f\u2028",  # ideographic and em spaces, narrow NBSP, line separator
]
INSIDE = [
    "alice doe@mailbox.test",
    "alice\tdoe@mailbox.test",
    "alice\u00a0doe@mailbox.test",
    "ali\u200bce@mailbox.test",
    "alice@mail box.test",
    " alice @mailbox.test",
]


@pytest.fixture
def engine(lab: MailLab) -> Engine:
    return Engine(lab.engine_config(), policy=SyntaxPolicy(test_domains=True))


def body(result: ValidationResult) -> dict[str, object]:
    """The result as a client reads it, less what differs between two runs (the catch-all's random RCPT)."""
    data = json.loads(json.dumps(result.to_dict()))
    data["checks"].get("catchAll", {}).get("metadata", {}).pop("smtpResponse", None)
    return dict(data)


@pytest.mark.parametrize("raw", PADDED)
def test_a_padded_address_is_judged_like_the_trimmed_one_and_echoes_its_input(
    engine: Engine, raw: str
) -> None:
    padded, trimmed = body(engine.verify(raw)), body(engine.verify("alice@mailbox.test"))
    assert (padded["input"], padded["email"]) == (raw, "alice@mailbox.test")
    assert {**padded, "input": None} == {**trimmed, "input": None}
    assert padded["severity"] == "valid"


@pytest.mark.parametrize("raw", INSIDE)
def test_blanks_inside_an_address_are_still_invalid(engine: Engine, lab: MailLab, raw: str) -> None:
    result = engine.verify(raw)
    assert (result.is_valid, list(result.checks)) == (False, ["syntax"])
    assert (result.input, result.email) == (raw, raw.strip().lower())
    assert lab.servers["mailbox"].sessions_opened == 0


def test_the_address_is_lowercased_and_the_input_keeps_the_case_the_user_typed(engine: Engine) -> None:
    result = engine.verify(" John.Doe@MailBox.TEST")
    assert (result.input, result.email) == (" John.Doe@MailBox.TEST", "john.doe@mailbox.test")
    syntax = result.checks["syntax"].metadata
    assert (syntax["normalizedEmail"], syntax["localPart"], syntax["domain"]) == (
        "john.doe@mailbox.test",
        "john.doe",
        "mailbox.test",
    )
    assert result.checks["smtp"].metadata["verdict"] == "undeliverable"  # RCPT asked about john.doe


@pytest.mark.parametrize(
    ("raw", "email"),
    [
        ("Jörg@Xn--Mnchen-3ya.TEST", "jörg@xn--mnchen-3ya.test"),
        ("jörg@münchen.test", "jörg@münchen.test"),
        ("JÖRG@MÜNCHEN.test", "jörg@münchen.test"),
    ],
)
def test_the_domain_keeps_the_form_the_user_typed_in_lowercase(engine: Engine, raw: str, email: str) -> None:
    result = engine.verify(f"{raw}\n")
    assert (result.input, result.email, result.is_valid) == (f"{raw}\n", email, True)
    syntax = result.checks["syntax"].metadata
    assert (syntax["domain"], syntax["asciiDomain"]) == ("münchen.test", "xn--mnchen-3ya.test")


def test_a_padded_syntax_failure_echoes_its_input_and_the_trimmed_text_in_lowercase(engine: Engine) -> None:
    result = engine.verify("\u00a0 Not An Address \ufeff")
    assert (result.input, result.email, result.score) == ("\u00a0 Not An Address \ufeff", "not an address", 0)
    assert result.recommendations == ("An email address must have an @-sign.",)


def test_blanks_alone_are_an_empty_address(engine: Engine) -> None:
    result = engine.verify(" \u200b\t")
    assert (result.input, result.email, result.recommendations) == (
        " \u200b\t",
        "",
        ("The address is empty.",),
    )


def test_lone_surrogates_are_escaped_so_the_result_stays_encodable(engine: Engine) -> None:
    result = engine.verify(" a\ud800@mailbox.test")
    assert (result.input, result.email) == (" a\\ud800@mailbox.test", "a\\ud800@mailbox.test")
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")


def test_spellings_of_one_domain_share_one_session_and_each_result_echoes_its_own_input(
    engine: Engine, lab: MailLab
) -> None:
    inputs = ["Alice@MailBox.test", " alice@mailbox.test", "BOB@MAILBOX.TEST\u00a0", "zed@mailbox.test"]
    results = engine.verify_many(inputs)
    assert [result.input for result in results] == inputs
    assert [result.email for result in results] == [
        "alice@mailbox.test",
        "alice@mailbox.test",
        "bob@mailbox.test",
        "zed@mailbox.test",
    ]
    assert [result.is_valid for result in results] == [True, True, True, False]
    assert lab.servers["mailbox"].sessions_opened == 1
    rcpts = [command for command in lab.servers["mailbox"].commands() if command.startswith("RCPT")]
    assert len(rcpts) == 4  # and the catch-all probe's random one, last
    assert rcpts[:3] == [
        "RCPT TO:<alice@mailbox.test>",
        "RCPT TO:<bob@mailbox.test>",
        "RCPT TO:<zed@mailbox.test>",
    ]
