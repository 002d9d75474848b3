"""Test sends and redeliveries through a real webhook worker: a slow receiver never holds the web thread
for more than the wait, and each account may ask for a limited number a minute."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import trustme
from flask.testing import FlaskClient

from services.webhooks import delivery_log, send_limits
from tests.fixtures.db import Persona, open_twins
from tests.webhooks.conftest import Subscription, subscribe
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.usefixtures("webhooks_worker")


@pytest.fixture
def trickler(test_ca: trustme.CA, webhook_env: None) -> Iterator[Receiver]:
    server = Receiver(ca=test_ca, trickle=1.0)
    server.start()
    yield server
    server.stop()


def test_a_test_send_to_a_trickling_receiver_answers_202_within_seconds(
    client: FlaskClient, owner: Persona, trickler: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delivery_log, "WAIT_SECONDS", 2.0)
    endpoint = subscribe(client, owner, trickler, ["quota.reset"])
    started = time.monotonic()
    response = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    assert time.monotonic() - started < 3.0
    assert response.status_code == 202, response.get_json()
    pending = response.get_json()
    assert (pending["status"], pending["attempts"]) == ("pending", [])
    assert response.headers["Location"].endswith(f"/webhooks/{endpoint.endpoint_id}/deliveries")
    # The worker's own deadline (30 s) ends the attempt; the log then shows why.
    give_up = time.monotonic() + 45
    while time.monotonic() < give_up:
        log = client.get(f"/webhooks/{endpoint.endpoint_id}/deliveries", headers=owner.headers).get_json()
        if log["data"][0]["attempts"]:
            break
        time.sleep(0.5)
    [attempt] = log["data"][0]["attempts"]
    assert "no complete answer within 30 seconds" in attempt["error"]
    assert log["data"][0]["status"] == "failed"


def test_test_sends_and_redeliveries_are_rate_limited_per_account(
    client: FlaskClient,
    owner: Persona,
    outsider: Persona,
    receiver: Receiver,
    subscribed: Subscription,
    frozen_clock: None,  # the ten sends all in one clock minute, however slow the machine
) -> None:
    for _ in range(send_limits.SENDS_PER_MINUTE):
        assert (
            client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers).status_code
            == 200
        )
    refused = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    assert refused.status_code == 429
    body = refused.get_json()
    assert (body["error"], body["limit"], body["remaining"]) == ("Rate Limit Exceeded", 10, 0)
    assert 1 <= body["retryAfter"] <= 60
    assert refused.headers["Retry-After"] == str(body["retryAfter"])
    delivery_id = client.get(
        f"/webhooks/{subscribed.endpoint_id}/deliveries", headers=owner.headers
    ).get_json()["data"][0]["id"]
    again = client.post(
        f"/webhooks/{subscribed.endpoint_id}/deliveries/{delivery_id}/redeliver", headers=owner.headers
    )
    assert again.status_code == 429
    subscribe(client, outsider, receiver, ["quota.reset"])
    other = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=outsider.headers)
    assert other.status_code == 200  # the limit is the account's own


@pytest.mark.parametrize("flooding_livemode", [False, True], ids=["test-mode-flood", "live-flood"])
def test_test_sends_of_one_mode_never_use_up_the_other_modes(
    client: FlaskClient, receiver: Receiver, frozen_clock: None, flooding_livemode: bool
) -> None:
    live, test = open_twins()
    flooding, other = (live, test) if flooding_livemode else (test, live)
    for persona in (flooding, other):
        subscribe(client, persona, receiver, ["quota.reset"])
    sends = [
        client.post("/webhooks/test", json={"type": "quota.reset"}, headers=flooding.headers).status_code
        for _ in range(send_limits.SENDS_PER_MINUTE + 1)
    ]
    assert sends == [200] * send_limits.SENDS_PER_MINUTE + [429]

    other_mode = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=other.headers)

    assert other_mode.status_code == 200, other_mode.get_json()
    assert other_mode.get_json()["delivered"] is True
