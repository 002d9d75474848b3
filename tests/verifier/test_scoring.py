"""The scoring model of docs/scoring.md: scores, validity, severity and advice for each kind of finding."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import scoring
from verifier.dns import DomainStatus
from verifier.lists import RoleConfidence, role_match
from verifier.results import Severity
from verifier.scoring import Findings, judge
from verifier.smtp.result import SmtpVerdict

GOOD = Findings(
    local_part="jane",
    domain_status=DomainStatus.ACCEPTS_MAIL,
    smtp=SmtpVerdict.DELIVERABLE,
    catch_all=False,
    catch_all_checked=True,
)


def test_deliverable_corporate_mailbox_scores_100() -> None:
    verdict = judge(GOOD)
    assert (verdict.score, verdict.is_valid, verdict.severity, verdict.recommendations) == (
        100,
        True,
        Severity.VALID,
        (),
    )


@pytest.mark.parametrize(
    ("change", "score", "severity", "advice"),
    [
        ({"free": True}, 95, Severity.VALID, None),
        ({"implicit_mx": True}, 95, Severity.VALID, None),
        ({"domain_status": DomainStatus.UNKNOWN, "smtp": None}, 65, Severity.WARNING, scoring.DNS_UNKNOWN),
        ({"smtp": SmtpVerdict.FULL}, 55, Severity.WARNING, scoring.FULL),
        ({"smtp": SmtpVerdict.UNKNOWN}, 65, Severity.WARNING, scoring.NO_ANSWER),
        ({"smtp": SmtpVerdict.UNKNOWN, "prober_blocked": True}, 65, Severity.WARNING, scoring.BLOCKED),
        ({"smtp": SmtpVerdict.UNKNOWN, "checker_degraded": True}, 65, Severity.WARNING, scoring.DEGRADED),
        ({"smtp": SmtpVerdict.UNKNOWN, "smtp_reason": "smtputf8_unsupported"}, 65, Severity.WARNING, None),
        (
            {"smtp": SmtpVerdict.UNKNOWN, "smtp_reason": "greylisted", "retry_after": 600},
            65,
            Severity.WARNING,
            scoring.GREYLISTED.format(minutes=10),
        ),
        (
            {"smtp": SmtpVerdict.UNKNOWN, "smtp_reason": "temporary_failure", "retry_after": 300},
            65,
            Severity.WARNING,
            scoring.UNAVAILABLE.format(minutes=5),
        ),
        ({"catch_all": True}, 65, Severity.WARNING, scoring.CATCH_ALL),
        ({"catch_all": None}, 90, Severity.VALID, scoring.CATCH_ALL_UNKNOWN),
        ({"catch_all": None, "catch_all_checked": False}, 100, Severity.VALID, None),
        ({"smtp": None, "smtp_skipped": True, "catch_all_checked": False}, 90, Severity.VALID, None),
        ({"role": role_match("postmaster")}, 65, Severity.WARNING, None),
        ({"role": role_match("newsletter")}, 80, Severity.VALID, None),
        ({"role": role_match("hr.team")}, 90, Severity.VALID, None),
        ({"disposable_entry": "mailinator.com"}, 55, Severity.WARNING, None),
        ({"typo_domain": "gmail.com"}, 70, Severity.VALID, "Did you mean jane@gmail.com?"),
    ],
)
def test_each_finding_costs_what_the_model_says(
    change: dict[str, object], score: int, severity: Severity, advice: str | None
) -> None:
    verdict = judge(replace(GOOD, **change))  # type: ignore[arg-type]
    assert (verdict.score, verdict.severity, verdict.is_valid) == (score, severity, True)
    if advice is not None:
        assert advice in verdict.recommendations


@pytest.mark.parametrize(
    ("change", "score", "advice"),
    [
        ({"domain_status": DomainStatus.NXDOMAIN, "smtp": None}, 5, scoring.NXDOMAIN),
        ({"domain_status": DomainStatus.NULL_MX, "smtp": None}, 5, scoring.NULL_MX),
        ({"domain_status": DomainStatus.NO_MAIL_HOSTS, "smtp": None}, 5, scoring.NO_MAIL_HOST),
        ({"smtp": SmtpVerdict.UNDELIVERABLE}, 10, scoring.REJECTED),
        ({"smtp": SmtpVerdict.DISABLED}, 15, scoring.DISABLED),
        ({"smtp": SmtpVerdict.UNDELIVERABLE, "disposable_entry": "yopmail.com"}, 10, scoring.REJECTED),
    ],
)
def test_critical_findings_make_the_address_invalid(
    change: dict[str, object], score: int, advice: str
) -> None:
    verdict = judge(replace(GOOD, **change))  # type: ignore[arg-type]
    assert (verdict.score, verdict.severity, verdict.is_valid) == (score, Severity.INVALID, False)
    assert verdict.recommendations[0] == advice


def test_greylisting_tells_when_to_retry() -> None:
    verdict = judge(replace(GOOD, smtp=SmtpVerdict.UNKNOWN, smtp_reason="greylisted", retry_after=300))
    assert verdict.recommendations == (
        "The mail server asked us to retry later (greylisting): check again in 5 min.",
    )
    assert verdict.severity is Severity.WARNING


def test_provider_accepting_everything_is_never_valid_on_that_alone() -> None:
    yahoo = replace(
        GOOD, smtp=SmtpVerdict.UNKNOWN, smtp_reason="provider_accepts_all", provider="Yahoo/AOL", free=True
    )
    verdict = judge(yahoo)
    assert (verdict.score, verdict.severity) == (60, Severity.WARNING)
    assert verdict.recommendations == (scoring.ACCEPTS_ALL.format(provider="Yahoo/AOL"),)


def test_doubts_add_up_but_never_below_the_warning_band() -> None:
    verdict = judge(replace(GOOD, catch_all=True, disposable_entry="mailinator.com", role=role_match("info")))
    assert (verdict.score, verdict.severity, verdict.is_valid) == (40, Severity.WARNING, True)
    assert verdict.recommendations == (
        scoring.CATCH_ALL,
        scoring.DISPOSABLE.format(domain="mailinator.com"),
        scoring.ROLE.format(name="info"),
    )


def test_the_models_constants_keep_its_promises() -> None:
    assert scoring.CEILING_MAILBOX_DISABLED < 40  # every critical finding lands in the invalid band
    assert 40 <= scoring.PERFECT - scoring.COST_UNKNOWN < 70  # an unknown alone is a warning
    assert scoring.PERFECT - scoring.COST_CATCH_ALL < 70  # a catch-all is never "valid" on its own
    assert 40 <= scoring.PERFECT - scoring.COST_ROLE[RoleConfidence.HIGH] < 70  # an existing role: a warning
    assert set(scoring.COST_ROLE) == set(RoleConfidence)


findings = st.builds(
    Findings,
    local_part=st.just("x"),
    domain_status=st.none() | st.sampled_from(DomainStatus),
    implicit_mx=st.booleans(),
    smtp=st.none() | st.sampled_from(SmtpVerdict),
    smtp_skipped=st.booleans(),
    smtp_reason=st.sampled_from(["", "greylisted", "provider_accepts_all", "no_reply"]),
    prober_blocked=st.booleans(),
    retry_after=st.none() | st.integers(0, 10_000),
    checker_degraded=st.booleans(),
    catch_all=st.none() | st.booleans(),
    catch_all_checked=st.booleans(),
    disposable_entry=st.none() | st.just("mailinator.com"),
    role=st.none() | st.sampled_from([role_match("admin"), role_match("ceo"), role_match("jane")]),
    free=st.booleans(),
    typo_domain=st.none() | st.just("gmail.com"),
)


@settings(deadline=None)
@given(findings)
def test_severity_is_invalid_exactly_when_the_address_is_invalid(found: Findings) -> None:
    verdict = judge(found)
    assert 0 <= verdict.score <= 100
    assert verdict.severity is Severity.from_score(verdict.score)
    assert (verdict.severity is Severity.INVALID) == (not verdict.is_valid)
