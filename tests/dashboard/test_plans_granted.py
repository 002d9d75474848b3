"""Plans are granted, not taken: an account opened on the form runs on the trial and says which plan it
asked for until the operator grants it; reseller scopes are not offered below Enterprise Plus."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from models.accounts import Tier
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import PASSWORD, VERIFY_LINK, emailed_path, grant, new_email, request_link

pytestmark = TIME_LIMIT


def test_a_new_account_runs_on_the_trial_until_its_plan_is_granted(page: Page) -> None:
    email = new_email()
    request_link(page, email, "pro")
    page.goto(emailed_path(email, VERIFY_LINK))
    expect(page.get_by_text("asked for the Pro plan")).to_be_visible()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm and sign in").click()

    page.goto("/dashboard/")
    expect(page.get_by_role("region", name="Plan")).to_contain_text("Trial")
    expect(page.get_by_test_id("plan-requested")).to_contain_text("You asked for the Pro plan")
    page.goto("/dashboard/keys")
    expect(page.get_by_role("checkbox", name="validate:write", exact=True)).to_have_count(1)
    expect(page.get_by_role("checkbox", name="resellers:write", exact=True)).to_have_count(0)

    grant(email, Tier.PRO)
    page.goto("/dashboard/")
    expect(page.get_by_role("region", name="Plan")).to_contain_text("Pro")
    expect(page.get_by_test_id("plan-requested")).to_have_count(0)
