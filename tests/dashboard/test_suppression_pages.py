"""An owner adds a Postmark inbound source, copies its URL and secret (shown once), Postmark's bounce lands
on the suppression list with its evidence and history, a CSV import adds more, and a revoked source
accepts nothing; every page passes axe-core at desktop and phone width."""

from __future__ import annotations

import base64
import re

import requests
from playwright.sync_api import FilePayload, Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import sign_up
from tests.suppression.signers import postmark_bounce

pytestmark = TIME_LIMIT
DIAGNOSTIC = "smtp;550 5.1.1 The email account that you tried to reach does not exist."


def post_bounce(service: Service, source_id: str, secret: str, email: str) -> int:
    auth = {"Authorization": "Basic " + base64.b64encode(f"inbound:{secret}".encode()).decode()}
    answer = requests.post(
        f"{service.base_url}/inbound/{source_id}", json=postmark_bounce(email), headers=auth, timeout=10
    )
    return answer.status_code


def test_a_source_made_on_the_page_feeds_the_list_and_stops_when_revoked(
    page: Page, service: Service, tmp_path: object
) -> None:
    sign_up(page)
    page.goto("/dashboard/inbound-sources")
    check_and_shoot(page, "inbound-sources")
    page.get_by_label("Sending service").select_option("postmark")
    page.get_by_label("Name", exact=True).fill("Postmark production")
    page.get_by_role("button", name="Add source").click()

    expect(page.get_by_role("heading", name="Source added: Postmark production")).to_be_visible()
    secret = page.get_by_test_id("source-secret").input_value()
    url = page.get_by_test_id("source-url").input_value()
    source_id = re.search(r"/inbound-sources/(src_\w+)/secret", page.url).group(1)  # type: ignore[union-attr]
    assert f"inbound:{secret}@" in url
    check_and_shoot(page, "inbound-source-secret")
    page.reload()
    expect(page.get_by_text("The secret was shown once and is not shown again.")).to_be_visible()
    assert secret not in page.content()

    assert post_bounce(service, source_id, secret, "Gone.User@example.com") == 200
    page.goto("/dashboard/suppression")
    row = page.get_by_test_id("suppressed-row").filter(has_text="Gone.User@example.com")
    expect(row).to_contain_text("postmark")
    expect(row).to_contain_text(DIAGNOSTIC)
    check_and_shoot(page, "suppression")
    row.get_by_role("link").click()
    expect(page.get_by_test_id("diagnostic")).to_have_text(DIAGNOSTIC)
    expect(page.get_by_test_id("history-row")).to_have_count(1)
    check_and_shoot(page, "suppression-entry")

    page.goto("/dashboard/suppression")
    csv_file = FilePayload(name="b.csv", mimeType="text/csv", buffer=b"email,kind\nold@example.org,hard")
    page.get_by_label("CSV file").set_input_files(files=[csv_file])
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported: 1 hard; 0 rows could not be read.")).to_be_visible()
    expect(page.get_by_test_id("suppressed-row")).to_have_count(2)

    page.goto("/dashboard/inbound-sources")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("Postmark production was revoked")).to_be_visible()
    assert post_bounce(service, source_id, secret, "another@example.com") == 401
