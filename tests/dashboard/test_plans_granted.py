"""Plans are granted, not taken: an account opened on the form runs on the trial and says which plan it
asked for until the operator grants it (its Overview shows the account id the operator names); reseller
scopes are not offered below Enterprise Plus."""

from __future__ import annotations

from playwright.sync_api import Page, expect
from sqlalchemy import select

from models.accounts import Tier
from models.session import transaction
from models.users import DashboardUser
from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import PASSWORD, VERIFY_LINK, emailed_path, grant, new_email, request_link

pytestmark = TIME_LIMIT


def account_of(email: str) -> int:
    """The id ``flask --app web accounts create`` printed as ``accountId`` and ``accounts grant`` takes."""
    with transaction() as session:
        return session.scalars(select(DashboardUser.account_id).where(DashboardUser.email == email)).one()


def test_a_new_account_runs_on_the_trial_until_its_plan_is_granted(page: Page) -> None:
    email = new_email()
    request_link(page, email, "pro")
    page.goto(emailed_path(email, VERIFY_LINK))
    expect(page.get_by_text("asked for the Pro plan")).to_be_visible()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm and sign in").click()

    page.goto("/dashboard/")
    expect(page.get_by_role("region", name="Plan")).to_contain_text("Trial")
    expect(page.get_by_test_id("account-id")).to_have_text(str(account_of(email)))
    expect(page.get_by_test_id("plan-requested")).to_contain_text("You asked for the Pro plan")
    page.goto("/dashboard/keys")
    expect(page.get_by_role("checkbox", name="validate:write", exact=True)).to_have_count(1)
    expect(page.get_by_role("checkbox", name="resellers:write", exact=True)).to_have_count(0)

    grant(email, Tier.PRO)
    page.goto("/dashboard/")
    expect(page.get_by_role("region", name="Plan")).to_contain_text("Pro")
    expect(page.get_by_test_id("plan-requested")).to_have_count(0)
