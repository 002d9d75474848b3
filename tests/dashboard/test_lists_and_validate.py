"""Lists: upload a CSV, watch the live progress reach 100%, download the cleaned list; validate one address
with its checks and evidence; the overview and usage pages show what was used."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_up

DOMAINS = [f"bench-{i:03d}.test" for i in range(10)]

pytestmark = TIME_LIMIT


def test_an_uploaded_list_is_watched_to_100_percent_and_downloaded(page: Page, tmp_path: Path) -> None:
    rows = [f"user{i:02d}@{DOMAINS[i % 10]}" for i in range(40)] + ["user77@bench-001.test", "not an address"]
    upload = tmp_path / "Kunden März.csv"
    upload.write_text("email\n" + "\n".join(rows) + "\n")
    sign_up(page)

    page.get_by_role("link", name="Lists").click()
    expect(
        page.get_by_text("the column headed email if the first row has one, else the first column")
    ).to_be_visible()
    page.get_by_label("CSV file").set_input_files(upload)
    page.get_by_role("button", name="Upload and validate").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Kunden März.csv")
    expect(page.get_by_test_id("percent")).to_have_text("100%", timeout=60_000)
    expect(page.get_by_test_id("status")).to_have_text("completed")
    expect(page.locator("progress")).to_have_attribute("value", str(len(rows)))
    check_and_shoot(page, "list-progress")
    with page.expect_download() as started:
        page.get_by_role("link", name="Download cleaned list (CSV)").click()
    assert started.value.suggested_filename == "Kunden März-cleaned.csv"
    table = list(csv.DictReader(io.StringIO(Path(started.value.path()).read_text())))
    assert [row["email"] for row in table] == rows  # the uploaded column, kept as it was

    page.get_by_role("link", name="All lists").click()
    expect(page.get_by_role("cell", name="completed")).to_have_count(1)
    expect(page.get_by_role("link", name="Kunden März.csv")).to_be_visible()
    check_and_shoot(page, "lists")
    page.get_by_role("link", name="Overview").click()
    expect(page.get_by_role("meter", name="Quota used")).to_have_attribute("aria-valuenow", str(len(rows)))
    check_and_shoot(page, "overview")
    page.get_by_role("link", name="Usage").click()
    expect(page.get_by_test_id("quota-used")).to_have_text(str(len(rows)))
    check_and_shoot(page, "usage")


def test_one_address_is_validated_with_every_check_and_its_smtp_evidence(page: Page) -> None:
    sign_up(page)

    page.get_by_role("link", name="Validate", exact=True).click()
    page.get_by_label("Email address").fill(" User07@Bench-003.TEST")
    page.get_by_role("button", name="Validate").click()

    result = page.get_by_test_id("result")
    heading = result.get_by_role("heading", name="user07@bench-003.test", exact=True)  # spec 2.1: lowercase
    expect(heading).to_be_visible(timeout=30_000)
    expect(result.get_by_role("rowheader", name="Mailbox (SMTP)")).to_be_visible()
    expect(result.get_by_role("rowheader", name="Syntax")).to_be_visible()
    result.get_by_text("Evidence").first.click()
    check_and_shoot(page, "validate")
