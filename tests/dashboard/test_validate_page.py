"""The Validate page reads plainly: checks by their human names, a skipped check as skipped only, one verdict
in the header, each reason stated once, and a typo domain told as a typo, never as disposable. A validation
still running when the wait ends answers as the API's 202 does: with where its result will be."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from playwright.sync_api import Locator, Page, expect
from sqlalchemy import insert, select, update

from core import clock
from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from models.users import DashboardUser
from services.jobs.store import new_public_id
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_out, sign_up

pytestmark = TIME_LIMIT
NAMES = [
    "Syntax",
    "Domain",
    "Disposable address",
    "Role address",
    "Mailbox (SMTP)",
    "Catch-all",
    "Free email provider",
    "Company domain",
    "Typo suggestion",
]


def test_a_typo_address_is_shown_with_human_names_one_verdict_and_each_reason_once(page: Page) -> None:
    sign_up(page)  # Business: every check but the mailbox provider

    result = _validate(page, "info@gmial.com")  # gmial.com: no such domain in the lab, disposable-listed

    rows = result.get_by_test_id("check")
    expect(rows.get_by_role("rowheader")).to_have_text(NAMES)
    expect(result.get_by_test_id("verdict")).to_have_text("invalid Score 0 of 100")
    for name in ("Mailbox (SMTP)", "Catch-all"):
        skipped = _row(result, name)
        expect(skipped.locator(".badge")).to_have_text(["skipped"])
        expect(skipped.get_by_test_id("statement")).to_have_text("Not checked: no mail server to ask.")
    expect(_row(result, "Typo suggestion")).to_contain_text("Did you mean info@gmail.com?")
    expect(_row(result, "Disposable address")).to_contain_text("Look-alike of gmail.com")
    advice = result.get_by_role("listitem")
    expect(advice.filter(has_text="Did you mean info@gmail.com?")).to_have_count(1)
    expect(advice.filter(has_text="isposable")).to_have_count(0)


def test_a_check_that_ran_shows_passed_or_failed_and_its_reason_once(page: Page) -> None:
    sign_up(page)

    result = _validate(page, "alice@greylist.test")  # answers 450 until retried: no conclusion yet

    smtp = _row(result, "Mailbox (SMTP)")
    expect(smtp.locator(".badge")).to_have_text(["unknown"])
    expect(smtp.get_by_test_id("statement")).to_contain_text("The mailbox could not be verified: greylisted.")
    expect(_row(result, "Syntax").locator(".badge")).to_have_text(["passed"])
    expect(_row(result, "Role address").locator(".badge")).to_have_text(["passed"])


def test_a_validation_still_running_says_where_its_result_will_be_and_shows_it_there(page: Page) -> None:
    owner = sign_up(page)
    job_id = _running_validation(owner, "alice@bench-001.test")  # as the wait leaves one the workers hold

    page.goto(f"/dashboard/validate/{job_id}")
    accepted = page.get_by_test_id("accepted")
    expect(accepted).to_contain_text("the validation continues in the background")
    expect(page.get_by_test_id("result")).to_have_count(0)
    here = page.get_by_role("navigation", name="Main").get_by_role("link", name="Validate", exact=True)
    expect(here).to_have_attribute("aria-current", "page")

    _answer(job_id, ItemState.INTERIM)  # a temporary failure, retried in the background
    accepted.get_by_role("link", name="this validation's page").click()
    result = page.get_by_test_id("result")
    expect(result.get_by_role("heading", name="alice@bench-001.test")).to_be_visible()
    expect(result.get_by_test_id("retrying")).to_contain_text("asked again in the background")

    _answer(job_id, ItemState.DONE)
    page.reload()
    expect(result.get_by_test_id("verdict")).to_have_text("valid Score 91 of 100")
    expect(result.get_by_test_id("retrying")).to_have_count(0)


def test_another_accounts_validation_is_not_found(page: Page) -> None:
    elsewhere = _running_validation(sign_up(page), "bob@bench-001.test")
    sign_out(page)
    sign_up(page)  # the outsider

    page.goto(f"/dashboard/validate/{elsewhere}")

    expect(page.get_by_role("heading", name="Not Found")).to_be_visible()
    expect(page.get_by_text("bob@bench-001.test")).to_have_count(0)


def _running_validation(owner: str, address: str) -> str:
    """A single validation the owner started in the dashboard, its address still with the workers."""
    now = clock.now()
    with transaction() as session:
        account_id = session.scalars(
            select(DashboardUser.account_id).where(DashboardUser.email == owner)
        ).one()
        job = ValidationJob(
            public_id=new_public_id(JobKind.SINGLE),
            account_id=account_id,
            key_id=None,
            kind=JobKind.SINGLE.value,
            status=JobStatus.RUNNING.value,
            options={"quickMode": False, "skipCatchAll": False, "features": [], "retryTemporary": True},
            total=1,
            created_at=now,
            started_at=now,
            deadline=now + timedelta(minutes=15),
        )
        session.add(job)
        session.flush()
        session.execute(
            insert(JobItem).values(
                job_id=job.id, position=0, input=address, email=address, state=ItemState.PENDING.value
            )
        )
        return job.public_id


def _answer(job_id: str, state: ItemState) -> None:
    """The worker's answer to the job's one address: interim (job still running) or settled (job done)."""
    with transaction() as session:
        job = session.scalars(select(ValidationJob).where(ValidationJob.public_id == job_id)).one()
        address = session.scalars(select(JobItem.input).where(JobItem.job_id == job.id)).one()
        session.execute(
            update(JobItem).where(JobItem.job_id == job.id).values(state=state.value, result=_result(address))
        )
        if state is ItemState.DONE:
            done = {
                "status": JobStatus.COMPLETED.value,
                "processed": 1,
                "valid": 1,
                "finished_at": clock.now(),
            }
            session.execute(update(ValidationJob).where(ValidationJob.id == job.id).values(**done))


def _result(address: str) -> dict[str, Any]:
    syntax = {"passed": True, "check": "syntax", "message": "The address is well formed."}
    return {
        "isValid": True,
        "email": address,
        "score": 91,
        "severity": "valid",
        "checks": {"syntax": syntax},
        "recommendations": [],
        "metadata": {},
    }


def _validate(page: Page, address: str) -> Locator:
    page.get_by_role("link", name="Validate", exact=True).click()
    page.get_by_label("Email address").fill(address)
    page.get_by_role("button", name="Validate").click()
    result = page.get_by_test_id("result")
    expect(result.get_by_role("heading", name=address)).to_be_visible(timeout=30_000)
    return result


def _row(result: Locator, name: str) -> Locator:
    return result.get_by_test_id("check").filter(
        has=result.page.get_by_role("rowheader", name=name, exact=True)
    )
