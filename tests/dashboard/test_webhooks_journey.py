"""An owner adds a webhook endpoint, copies its signing secret, sends a test event, reads the delivery in the
log (status, response, time, payload) and redelivers it; the receiver verifies both signatures."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from tests.dashboard.browser import check_and_shoot
from tests.dashboard.service import TIME_LIMIT, Service
from tests.dashboard.steps import sign_up

pytestmark = TIME_LIMIT


def test_an_endpoint_gets_a_test_event_logged_and_redelivered(page: Page, service: Service) -> None:
    receiver = service.receiver
    sign_up(page)

    page.get_by_role("link", name="Webhooks").click()
    check_and_shoot(page, "webhooks")
    page.get_by_label("HTTPS URL").fill(receiver.url())
    page.get_by_role("button", name="Add endpoint").click()
    receiver.secret = page.get_by_test_id("signing-secret").input_value()
    assert receiver.secret.startswith("whsec_")
    expect(page.get_by_text("check the X-Service-Signature header of every delivery")).to_be_visible()
    assert "X-Verimail" not in page.content()
    check_and_shoot(page, "webhook-secret")
    page.reload()  # adds no second endpoint, shows the secret no more: on to the endpoint's page
    expect(page.get_by_role("status")).to_contain_text("The signing secret was shown once")
    expect(page.get_by_role("heading", name="Webhook endpoint")).to_be_visible()
    assert receiver.secret not in page.content()
    page.goto("/dashboard/webhooks")
    expect(page.get_by_role("link", name=receiver.url())).to_have_count(1)
    page.get_by_role("link", name=receiver.url()).click()
    already = len(receiver.received)

    page.get_by_label("Send a test event").select_option("validation.completed")
    page.get_by_role("button", name="Send test").click()

    expect(page.get_by_role("status")).to_contain_text(
        "Test event validation.completed delivered: the endpoint"
    )
    delivery = page.get_by_test_id("delivery")
    expect(delivery).to_have_count(1)
    expect(delivery.get_by_test_id("attempt-count")).to_contain_text("; 1 attempt.")
    expect(delivery).to_contain_text("HTTP 200")
    expect(delivery).to_contain_text('{"ok": true}')
    expect(delivery).to_contain_text(" ms")
    delivery.get_by_text("Payload").click()
    expect(delivery.locator("pre")).to_contain_text('"type": "validation.completed"')
    check_and_shoot(page, "webhook-deliveries")

    page.once("dialog", lambda dialog: dialog.accept())
    delivery.get_by_role("button", name="Redeliver").click()

    expect(page.get_by_role("status")).to_contain_text("Redelivery validation.completed delivered")
    expect(delivery).to_have_count(1)  # a redelivery is attempt 2 of the same delivery, not a new card
    expect(delivery.get_by_test_id("attempt-count")).to_contain_text("; 2 attempts.")
    attempts = delivery.get_by_test_id("attempt")
    expect(attempts).to_have_count(2)
    expect(attempts.nth(0).get_by_role("cell").first).to_have_text("#1")
    expect(attempts.nth(1).get_by_role("cell").first).to_have_text("#2 (redelivery)")
    expect(attempts.nth(1)).to_contain_text("HTTP 200")
    _wait_for(lambda: len(receiver.received) >= already + 2)
    sent = receiver.received[already:]
    assert [item.verified for item in sent] == [True, True]
    assert sent[0].event is not None
    assert sent[1].event is not None
    assert sent[0].event["id"] == sent[1].event["id"]  # the same event, sent again


def _wait_for(condition: object, timeout: float = 10) -> None:
    give_up = time.monotonic() + timeout
    while not condition() and time.monotonic() < give_up:  # type: ignore[operator]
        time.sleep(0.1)
