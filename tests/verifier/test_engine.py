"""The engine end to end against the mail lab: real DNS packets, real SMTP sessions on 127.0.0.x."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from maillab import MailLab
from maillab.model import DomainSpec, World
from verifier import scoring
from verifier.config import EngineConfig, Nameserver
from verifier.dns import DomainStatus, MailDomain, MxRecord
from verifier.engine import Engine, Options, assemble, resolve_domain
from verifier.results import WARNING_FROM, Severity, ValidationResult
from verifier.smtp import DomainProbeResult, probe_domain_group
from verifier.syntax import ParsedAddress, SyntaxPolicy


def checks_of(engine: Engine, address: str) -> Any:
    """The ``checks`` object a client would read, as plain JSON (typed Any: tests index it freely)."""
    return json.loads(json.dumps(engine.verify(address).to_dict()))["checks"]


LAB_POLICY = SyntaxPolicy(test_domains=True)


@pytest.fixture
def engine(lab: MailLab) -> Engine:
    return Engine(lab.engine_config(), policy=LAB_POLICY)


def sessions(lab: MailLab, *servers: str) -> int:
    return sum(lab.servers[name].sessions_opened for name in servers)


@pytest.mark.parametrize(
    ("address", "score", "severity", "advice"),
    [
        ("alice@mailbox.test", 100, Severity.VALID, None),
        ("alice@implicit.test", 95, Severity.VALID, None),
        ("alice@tls.test", 100, Severity.VALID, None),
        ("alice@tls-required.test", 100, Severity.VALID, None),
        ("alice@outlook.test", 100, Severity.VALID, None),
        ("alice@m365.test", 100, Severity.VALID, None),
        ("jörg@münchen.test", 100, Severity.VALID, None),
        ("x@catchall.test", 65, Severity.WARNING, scoring.CATCH_ALL),
        ("postmaster@mailbox.test", 65, Severity.WARNING, "Role address (postmaster@)"),
        ("info@mailbox.test", 65, Severity.WARNING, "Role address (info@)"),
        ("admin@catchall.test", 40, Severity.WARNING, scoring.CATCH_ALL),
        ("anyone@mailinator.com", 40, Severity.WARNING, "Disposable address (mailinator.com)"),
        ("alice@duck.com", 100, Severity.VALID, None),
        ("alice@busy.test", 65, Severity.WARNING, "temporarily unavailable: check again in 5 min"),
        ("x@tls-broken.test", 10, Severity.INVALID, scoring.REJECTED),
        ("full@full.test", 55, Severity.WARNING, scoring.FULL),
        ("alice@greylist.test", 65, Severity.WARNING, "check again in 5 min"),
        ("alice@spamhaus.test", 65, Severity.WARNING, scoring.BLOCKED),
        ("alice@proofpoint.test", 65, Severity.WARNING, scoring.BLOCKED),
        ("alice@dead.test", 65, Severity.WARNING, scoring.NO_ANSWER),
        ("alice@tarpit.test", 65, Severity.WARNING, "temporarily unavailable: check again in 5 min"),
        ("jörg@mailbox.test", 65, Severity.WARNING, scoring.NO_SMTPUTF8),
        ("a@yahoo.test", 65, Severity.WARNING, "accepts every address at first"),
        ("alice@servfail.test", 65, Severity.WARNING, scoring.DNS_UNKNOWN),
        ("alice@timeout.test", 65, Severity.WARNING, scoring.DNS_UNKNOWN),
        ("zed@mailbox.test", 10, Severity.INVALID, scoring.REJECTED),
        ("zed@m365.test", 10, Severity.INVALID, scoring.REJECTED),
        ("gone@disabled.test", 15, Severity.INVALID, scoring.DISABLED),
        ("suspended@accounts.test", 15, Severity.INVALID, scoring.DISABLED),
        ("closed@accounts.test", 15, Severity.INVALID, scoring.DISABLED),
        ("nosuch@accounts.test", 10, Severity.INVALID, scoring.REJECTED),
        ("alice@banned-ip.test", 65, Severity.WARNING, scoring.BLOCKED),
        ("alice@policy.test", 65, Severity.WARNING, scoring.BLOCKED),
        ("alice@nullmx.test", 5, Severity.INVALID, scoring.NULL_MX),
        ("alice@nodata.test", 5, Severity.INVALID, scoring.NO_MAIL_HOST),
        ("alice@no-such-domain.test", 5, Severity.INVALID, scoring.NXDOMAIN),
    ],
)
def test_each_verdict_path_gives_its_score_and_advice(
    engine: Engine, address: str, score: int, severity: Severity, advice: str | None
) -> None:
    result = engine.verify(address)
    assert (result.score, result.severity, result.is_valid) == (
        score,
        severity,
        severity is not Severity.INVALID,
    )
    if advice is None:
        assert result.recommendations == ()
    else:
        assert any(advice in line for line in result.recommendations), result.recommendations


def test_result_is_spec_json_in_camel_case(engine: Engine) -> None:
    body = json.loads(json.dumps(engine.verify("Alice@MailBox.test").to_dict()))
    assert (body["input"], body["email"], body["isValid"], body["score"], body["severity"]) == (
        "Alice@MailBox.test",
        "alice@mailbox.test",
        True,
        100,
        "valid",
    )
    assert list(body)[:3] == ["isValid", "input", "email"]
    checks = body["checks"]
    assert list(checks)[:6] == ["syntax", "domain", "disposable", "roleBased", "smtp", "catchAll"]
    syntax = checks["syntax"]["metadata"]
    assert (syntax["normalizedEmail"], syntax["localPart"], syntax["domain"]) == (
        "alice@mailbox.test",
        "alice",
        "mailbox.test",
    )
    assert checks["domain"]["metadata"]["hasMX"] is True
    assert checks["domain"]["metadata"]["mxRecords"] == ["mx.mailbox.test"]
    assert checks["roleBased"]["metadata"] == {"isRole": False, "confidence": "high"}
    assert checks["smtp"]["metadata"]["smtpResponse"].startswith("250")
    assert checks["catchAll"]["metadata"]["isCatchAll"] is False
    assert "status" not in checks["catchAll"]  # a determined verdict needs no qualifier
    assert checks["corporateEmail"]["metadata"] == {"isCorporate": True}


def test_rejected_mailbox_carries_the_servers_reply(engine: Engine) -> None:
    smtp = engine.verify("zed@mailbox.test").checks["smtp"]
    assert not smtp.passed
    assert str(smtp.metadata["smtpResponse"]).startswith("550")


def test_greylisting_is_retryable_with_a_retry_after(engine: Engine) -> None:
    smtp = engine.verify("alice@greylist.test").checks["smtp"].metadata
    assert (smtp["verdict"], smtp["retryable"], smtp["retryAfter"]) == ("unknown", True, 300)


def test_blocked_prober_is_unknown_never_no_such_mailbox(engine: Engine) -> None:
    result = engine.verify("alice@spamhaus.test")
    assert result.is_valid
    assert result.checks["smtp"].metadata["proberBlocked"] is True


def test_checks_with_nothing_to_ask_are_marked_skipped_not_failed(engine: Engine) -> None:
    checks = checks_of(engine, "alice@nullmx.test")
    for name in ("smtp", "catchAll"):
        assert (checks[name]["status"], checks[name]["reason"]) == ("skipped", "no mail server to ask")
    smtp = checks_of(engine, "alice@servfail.test")["smtp"]
    assert (smtp["status"], smtp["reason"]) == ("skipped", "the domain's mail servers are unknown")


def test_an_unverifiable_mailbox_is_marked_unknown_and_a_rejected_one_plainly_failed(engine: Engine) -> None:
    greylisted = checks_of(engine, "alice@greylist.test")["smtp"]
    assert (greylisted["passed"], greylisted["status"], greylisted["reason"]) == (
        False,
        "unknown",
        "greylisted",
    )
    rejected = checks_of(engine, "zed@mailbox.test")["smtp"]
    assert rejected["passed"] is False
    assert "status" not in rejected


def test_an_undetermined_catch_all_is_null_with_its_reason_never_false(engine: Engine) -> None:
    check = checks_of(engine, "alice@inconclusive.test")["catchAll"]
    assert (check["metadata"]["isCatchAll"], check["passed"], check["status"]) == (None, False, "unknown")
    assert check["reason"].startswith("the random-address probe got no clear answer")
    yahoo = checks_of(engine, "a@yahoo.test")["catchAll"]
    assert yahoo["metadata"]["isCatchAll"] is None
    assert "accepts every address" in yahoo["reason"]


def test_a_relay_address_on_a_live_server_is_a_valid_relay_not_disposable(engine: Engine) -> None:
    disposable = engine.verify("alice@duck.com").checks["disposable"]
    assert disposable.passed
    assert (disposable.metadata["isDisposable"], disposable.metadata["isRelay"]) == (False, True)


def test_null_mx_domain_reports_no_mx(engine: Engine) -> None:
    domain = engine.verify("alice@nullmx.test").checks["domain"]
    assert (domain.passed, domain.metadata["hasMX"], domain.metadata["mxRecords"]) == (False, False, [])


def test_syntax_failure_has_score_zero_and_only_the_syntax_check(engine: Engine, lab: MailLab) -> None:
    result = engine.verify("Not An Address")
    assert (result.email, result.score, result.severity, result.is_valid) == (
        "not an address",
        0,
        Severity.INVALID,
        False,
    )
    assert list(result.checks) == ["syntax"]
    syntax = json.loads(json.dumps(result.to_dict()))["checks"]["syntax"]
    assert (syntax["passed"], syntax["status"], syntax["reason"]) == (
        False,
        "fail",
        "An email address must have an @-sign.",
    )


def test_quick_mode_skips_smtp_and_catch_all_and_opens_no_session(engine: Engine, lab: MailLab) -> None:
    result = engine.verify("alice@mailbox.test", Options(quick_mode=True))
    assert "smtp" not in result.checks
    assert "catchAll" not in result.checks
    assert result.checks["domain"].passed
    assert result.score == 90  # a mailbox nobody asked about is worth a little less (docs/scoring.md)
    assert sessions(lab, "mailbox") == 0


def test_skip_catch_all_sends_no_random_recipient(engine: Engine, lab: MailLab) -> None:
    result = engine.verify("someone@catchall.test", Options(skip_catch_all=True))
    assert "catchAll" not in result.checks
    assert result.checks["smtp"].passed
    assert lab.servers["catchall"].verbs().count("RCPT") == 1


def test_catch_all_probe_runs_after_the_real_recipient(engine: Engine, lab: MailLab) -> None:
    engine.verify("someone@catchall.test")
    rcpts = [command for command in lab.servers["catchall"].commands() if command.upper().startswith("RCPT")]
    assert len(rcpts) == 2
    assert "someone@catchall.test" in rcpts[0]


def test_features_limit_the_checks_and_their_costs(engine: Engine) -> None:
    plan = Options(features=frozenset({"syntax", "domain", "disposable"}))
    result = engine.verify("postmaster@mailbox.test", plan)
    assert list(result.checks) == ["syntax", "domain", "disposable", "smtp"]
    assert "mxRecords" not in result.checks["domain"].metadata
    assert not any("Role address" in line for line in result.recommendations)


def test_unknown_feature_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown feature names"):
        Options(features=frozenset({"syntax", "telepathy"}))


def test_many_addresses_come_back_in_input_order_with_duplicates(engine: Engine) -> None:
    inputs = ["zed@mailbox.test", "alice@mailbox.test", "nope", "ALICE@mailbox.test", "zed@mailbox.test"]
    results = engine.verify_many(inputs)
    assert [result.input for result in results] == inputs
    assert [result.email for result in results] == [text.lower() for text in inputs]
    assert [result.is_valid for result in results] == [False, True, False, True, False]


def test_n_addresses_over_k_domains_open_k_sessions(engine: Engine, lab: MailLab) -> None:
    servers = ("mailbox", "tls", "full", "utf8")
    addresses = [
        f"{name}@{server}.test" for server in servers for name in ("alice", "bob", "carol", "dave", "zed")
    ]
    results = engine.verify_many(addresses)
    assert len(results) == 20
    assert sessions(lab, *servers) == 4
    # each group's five and its catch-all probe's random one, in one write ("zed" makes the probe moot)
    assert all(lab.servers[server].verbs().count("RCPT") == 6 for server in servers)


def test_each_address_is_asked_once_however_often_it_appears(engine: Engine, lab: MailLab) -> None:
    engine.verify_many(["alice@mailbox.test", "Alice@mailbox.test", "alice@mailbox.test", "zed@mailbox.test"])
    rcpts = [command for command in lab.servers["mailbox"].commands() if command.startswith("RCPT")]
    assert rcpts[:2] == ["RCPT TO:<alice@mailbox.test>", "RCPT TO:<zed@mailbox.test>"]
    assert len(rcpts) == 3  # and the catch-all probe's random one


def test_provider_refusing_a_second_recipient_gets_one_session_per_address(
    engine: Engine, lab: MailLab
) -> None:
    results = engine.verify_many(["alice@outlook.test", "bob@outlook.test", "zed@outlook.test"])
    assert [result.is_valid for result in results] == [True, True, False]
    assert sessions(lab, "outlook") == 3


def test_stages_run_apart_give_the_same_result(engine: Engine, lab: MailLab) -> None:
    """What a Celery chain does: each stage's output crosses a JSON boundary before the next."""
    options = Options()
    parsed = engine.parse("bob@mailbox.test")
    assert isinstance(parsed, ParsedAddress)
    mail_domain = MailDomain.from_dict(resolve_domain(parsed, engine.resolver).to_dict())
    probe = probe_domain_group(mail_domain, [parsed.email], config=engine.config, check_catch_all=True)
    probe = DomainProbeResult.from_dict(probe.to_dict())
    staged = assemble(parsed, mail_domain, probe, options)
    assert _comparable(staged) == _comparable(engine.verify("bob@mailbox.test", options))


def _comparable(result: ValidationResult) -> object:
    body = json.loads(json.dumps(result.to_dict()))
    body["checks"]["catchAll"]["metadata"].pop("smtpResponse", None)  # the random local part differs
    return body


@pytest.fixture(scope="module")
def dark_lab() -> Iterator[MailLab]:
    """A world whose every MX address refuses connections: what a closed outbound port 25 looks like."""
    dead = "127.0.0.2"
    domains = tuple(
        spec
        for index in range(4)
        for spec in (
            DomainSpec(f"dark{index}.test", mx=((10, f"mx.dark{index}.test"),)),
            DomainSpec(f"mx.dark{index}.test", a=(dead,)),
        )
    )
    with MailLab(World(domains, (), dead_ips=(dead,))) as lab:
        yield lab


def test_checker_is_degraded_when_no_mx_of_many_domains_answers(dark_lab: MailLab) -> None:
    engine = Engine(dark_lab.engine_config(), policy=LAB_POLICY)
    results = engine.verify_many([f"jane{index}@dark{index}.test" for index in range(4)])
    assert all(result.is_valid and result.severity is Severity.WARNING for result in results)
    assert all(result.checks["smtp"].metadata["checkerDegraded"] is True for result in results)
    assert all(scoring.DEGRADED in result.recommendations for result in results)


def test_one_unreachable_domain_is_the_domains_problem_not_ours(dark_lab: MailLab) -> None:
    engine = Engine(dark_lab.engine_config(), policy=LAB_POLICY)
    result = engine.verify("jane@dark0.test")
    assert result.checks["smtp"].metadata["checkerDegraded"] is False
    assert result.recommendations == (scoring.NO_ANSWER,)


QUICK = Options(quick_mode=True)


def assembled(address: str, mx_host: str) -> ValidationResult:
    """A result for a public domain without touching the network: DNS as a worker would have stored it."""
    parsed = Engine(lab_free_config(), policy=LAB_POLICY).parse(address)
    assert isinstance(parsed, ParsedAddress)
    mail_domain = MailDomain(
        parsed.ascii_domain, DomainStatus.ACCEPTS_MAIL, (MxRecord(10, mx_host, ("192.0.2.1",)),)
    )
    return assemble(parsed, mail_domain, None, QUICK)


def lab_free_config() -> EngineConfig:
    return EngineConfig(dns_nameservers=(Nameserver("192.0.2.53"),))


def test_relay_addresses_are_valid_relays_not_disposable() -> None:
    result = assembled("someone@duck.com", "inbound-smtp.duck.com")
    disposable = result.checks["disposable"]
    assert disposable.passed
    assert disposable.metadata == {
        "isDisposable": False,
        "isRelay": True,
        "relayService": "DuckDuckGo Email Protection",
    }
    assert result.checks["corporateEmail"].metadata == {"isCorporate": False}
    assert result.severity is Severity.VALID


def test_disposable_subdomain_is_disposable() -> None:
    result = assembled("x@inbox.mailinator.com", "mail.mailinator.com")
    assert result.checks["disposable"].metadata["matchedDomain"] == "mailinator.com"
    assert scoring.DISPOSABLE.format(domain="mailinator.com") in result.recommendations
    assert result.severity is Severity.WARNING


def test_typo_domain_gets_a_suggestion() -> None:
    result = assembled("john@gmial.com", "mx.gmial.com")
    assert result.checks["typoSuggestion"].metadata["suggestedEmail"] == "john@gmail.com"
    assert "Did you mean john@gmail.com?" in result.recommendations


def test_a_listed_typo_domain_is_told_as_a_typo_and_never_called_disposable() -> None:
    result = assembled("info@gmial.com", "mx.gmial.com")  # gmial.com is on both disposable lists

    disposable = result.checks["disposable"]
    assert not disposable.passed
    assert disposable.message == "Look-alike of gmail.com: mail sent here does not reach gmail.com."
    assert disposable.metadata == {
        "isDisposable": True,
        "isRelay": False,
        "matchedDomain": "gmial.com",
        "lookAlikeOf": "gmail.com",
    }
    assert "Did you mean info@gmail.com?" in result.recommendations
    assert not any("isposable" in advice for advice in result.recommendations)
    assert result.score == WARNING_FROM  # the look-alike still costs what a disposable domain costs


def test_without_typo_suggestions_in_the_plan_a_listed_typo_domain_is_disposable() -> None:
    parsed = Engine(lab_free_config(), policy=LAB_POLICY).parse("jane@gmial.com")
    assert isinstance(parsed, ParsedAddress)
    mx = MailDomain("gmial.com", DomainStatus.ACCEPTS_MAIL, (MxRecord(10, "mx.gmial.com", ("192.0.2.1",)),))
    without_typo = Options(quick_mode=True, features=frozenset({"syntax", "domain", "disposable"}))

    result = assemble(parsed, mx, None, without_typo)

    assert result.checks["disposable"].message == "Disposable email provider."
    assert scoring.DISPOSABLE.format(domain="gmial.com") in result.recommendations


def test_free_provider_and_mailbox_provider_are_reported() -> None:
    result = assembled("jane@gmail.com", "gmail-smtp-in.l.google.com")
    assert result.checks["freeEmail"].metadata == {"isFree": True}
    assert result.checks["corporateEmail"].metadata == {"isCorporate": False}
    assert result.checks["mailboxProvider"].metadata["provider"] == "Google"
    assert result.checks["typoSuggestion"].metadata == {"suggestion": None}


def test_address_literals_are_accepted_by_policy_but_never_probed(lab: MailLab) -> None:
    engine = Engine(lab.engine_config(), policy=SyntaxPolicy(address_literal=True))
    result = engine.verify("alice@[127.0.0.11]")
    assert result.checks["smtp"].message == "Not checked: address literals are not probed."
    assert lab.servers["mailbox"].sessions_opened == 0
