"""The Overview's and Usage's figures read plainly: one day of data is one day's bar on a chart of the whole
billing period, and the plan's features are named as people name them."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.dashboard.service import TIME_LIMIT
from tests.dashboard.steps import sign_up
from web.dashboard.present import CHART_WIDTH

pytestmark = TIME_LIMIT
SHORTEST_PERIOD_DAYS = 28


def test_one_day_of_data_draws_one_days_bar_on_a_chart_of_the_whole_period(page: Page) -> None:
    sign_up(page)
    page.get_by_role("link", name="Validate", exact=True).click()
    page.get_by_label("Email address").fill("alice@mailbox.test")
    page.get_by_label("Quick mode").check()
    page.get_by_role("button", name="Validate").click()
    expect(page.get_by_test_id("verdict")).to_be_visible()

    for link in ("Overview", "Usage"):
        page.get_by_role("navigation", name="Main").get_by_role("link", name=link).click()
        chart = page.get_by_test_id("chart")
        bar = chart.locator("rect.bar")
        expect(bar).to_have_count(1)
        assert float(bar.get_attribute("width") or "inf") <= CHART_WIDTH / SHORTEST_PERIOD_DAYS
        expect(bar.locator("title")).to_have_text(re.compile(r"^\d\d \w{3}: 1 validation$"))
        assert page.get_by_test_id("chart-axis").locator("span").count() >= 4  # first day, weeks, last day


def test_plan_features_are_named_as_people_name_them(page: Page) -> None:
    sign_up(page, tier="business")

    page.get_by_role("link", name="Usage").click()

    expect(page.get_by_test_id("plan-features")).to_have_text(
        "Plan features: Syntax, Domain, MX records, Disposable address, Role address, Catch-all, "
        "Typo suggestion, Free email provider, Company domain."
    )
