"""POST /webhooks/test returns the outcome of its one attempt; redeliver sends an event again."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from models import WebhookEndpoint
from models import session as db_session
from services import auth
from services.audit import Origin
from services.webhooks import delivery, delivery_log
from services.webhooks.events import EVENT_TYPES
from tests.fixtures.db import Persona
from tests.webhooks.conftest import Subscription, subscribe
from tests.webhooks.receiver import Receiver

# Test sends are made by a webhook worker, as in production.
pytestmark = pytest.mark.usefixtures("webhooks_worker")


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_test_send_delivers_a_signed_sample_of_each_type(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription, event_type: str
) -> None:
    response = client.post("/webhooks/test", json={"type": event_type}, headers=owner.headers)
    assert response.status_code == 200
    outcome = response.get_json()
    assert (outcome["delivered"], outcome["statusCode"], outcome["error"]) == (True, 200, None)
    [event] = receiver.events()
    assert event["type"] == event_type
    assert event["id"] == outcome["delivery"]["eventId"]
    assert event["data"]
    assert outcome["delivery"]["test"] is True
    assert (outcome["livemode"], outcome["delivery"]["livemode"]) == (True, True)


def test_failed_test_send_reports_the_answer_and_is_not_retried(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status, receiver.answer = 500, b"database down"
    response = client.post("/webhooks/test", json={"type": "batch.completed"}, headers=owner.headers)
    outcome = response.get_json()
    assert (outcome["delivered"], outcome["statusCode"]) == (False, 500)
    assert outcome["delivery"]["attempts"][0]["responseExcerpt"] == "database down"
    assert outcome["delivery"]["status"] == "failed"
    assert delivery.deliver_due() == 0


def test_test_send_reports_a_refused_target(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    # As if DNS had changed since the endpoint was created: the worker checks the target at every send.
    with db_session.transaction() as session:
        session.get_one(WebhookEndpoint, subscribed.endpoint_id).url = "https://10.0.0.1/hooks"
    outcome = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers).get_json()
    assert outcome["delivered"] is False
    assert outcome["statusCode"] is None
    assert "private" in outcome["error"]
    assert receiver.received == []


def test_test_send_needs_a_known_type_and_names_the_endpoint_when_several(
    client: FlaskClient, owner: Persona, receiver: Receiver
) -> None:
    none_yet = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    assert (none_yet.status_code, none_yet.get_json()["field"]) == (409, "endpointId")
    first = subscribe(client, owner, receiver, ["quota.reset"])
    subscribe(client, owner, receiver, ["quota.reset"])
    several = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    assert (several.status_code, several.get_json()["field"]) == (409, "endpointId")
    unknown = client.post("/webhooks/test", json={"type": "quota.sold"}, headers=owner.headers)
    assert (unknown.status_code, unknown.get_json()["field"]) == (400, "type")
    chosen = client.post(
        "/webhooks/test", json={"type": "quota.reset", "endpointId": first.endpoint_id}, headers=owner.headers
    )
    assert chosen.get_json()["delivered"] is True


def test_redeliver_sends_a_failed_event_again_with_the_same_id(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    receiver.status = 500
    sent = client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers).get_json()
    failed = sent["delivery"]
    assert failed["status"] == "failed"

    receiver.status = 200
    response = client.post(
        f"/webhooks/{subscribed.endpoint_id}/deliveries/{failed['id']}/redeliver", headers=owner.headers
    )
    assert response.status_code == 201
    again = response.get_json()
    assert again["id"] != failed["id"]
    assert (again["eventId"], again["status"]) == (failed["eventId"], "delivered")
    assert receiver.events()[-1]["id"] == failed["eventId"]
    log = client.get(f"/webhooks/{subscribed.endpoint_id}/deliveries", headers=owner.headers).get_json()
    assert [item["id"] for item in log["data"]] == [again["id"], failed["id"]]


def test_redeliver_of_another_endpoints_delivery_is_404(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    other = subscribe(client, owner, receiver, ["quota.reset"])
    delivery_id = client.get(
        f"/webhooks/{subscribed.endpoint_id}/deliveries", headers=owner.headers
    ).get_json()["data"][0]["id"]
    response = client.post(
        f"/webhooks/{other.endpoint_id}/deliveries/{delivery_id}/redeliver", headers=owner.headers
    )
    assert response.status_code == 404


def test_delivery_log_pages_newest_first(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    for _ in range(3):
        client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers)
    url = f"/webhooks/{subscribed.endpoint_id}/deliveries"
    first = client.get(f"{url}?limit=2", headers=owner.headers).get_json()
    assert (len(first["data"]), first["hasMore"]) == (2, True)
    older = f"{url}?limit=2&startingAfter={first['nextCursor']}"
    second = client.get(older, headers=owner.headers).get_json()
    assert (len(second["data"]), second["hasMore"], second["nextCursor"]) == (1, False, None)
    ids = [item["id"] for item in first["data"] + second["data"]]
    assert ids == sorted(ids, reverse=True)


def test_the_log_by_event_shows_redeliveries_as_later_attempts_of_the_first_delivery(
    client: FlaskClient, owner: Persona, receiver: Receiver, subscribed: Subscription
) -> None:
    sends = [
        client.post("/webhooks/test", json={"type": "quota.reset"}, headers=owner.headers) for _ in range(3)
    ]
    oldest, middle, newest = (sent.get_json()["delivery"]["id"] for sent in sends)
    redeliver = f"/webhooks/{subscribed.endpoint_id}/deliveries/{oldest}/redeliver"
    for _ in range(2):
        assert client.post(redeliver, headers=owner.headers).status_code == 201
    actor = auth.authenticate(owner.secret, Origin(ip="127.0.0.1"))

    first = delivery_log.list_event_deliveries(actor, subscribed.endpoint_id, limit=2)
    older = delivery_log.list_event_deliveries(actor, subscribed.endpoint_id, limit=2, starting_after=middle)

    assert [sent.first.delivery.id for sent in first.events] == [newest, middle]
    assert first.has_more
    [redelivered] = older.events
    assert not older.has_more
    assert redelivered.first.delivery.id == oldest
    assert [again for _attempt, again in redelivered.attempts] == [False, True, True]
    assert len({record.event.id for record in redelivered.records}) == 1
    assert redelivered.latest.delivery.status == "delivered"
