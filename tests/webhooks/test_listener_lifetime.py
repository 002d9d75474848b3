"""An event listener's life: events of its mode queue for it from when it opens, an acknowledgement takes
them off (repeating one is harmless), each poll keeps it alive, and ten minutes without one end it: it
answers 404, gets nothing new, and goes with its queue when the account opens another."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import func, select

from core import clock
from models.listeners import EventListener
from models.session import transaction
from services.webhooks.listeners import IDLE
from tests.fixtures.db import Persona, open_twins


def open_listener(client: FlaskClient, persona: Persona) -> dict[str, Any]:
    response = client.post("/webhooks/listeners", json={"events": ["key.created"]}, headers=persona.headers)
    assert response.status_code == 201, response.get_json()
    opened: dict[str, Any] = response.get_json()
    return opened


def poll(client: FlaskClient, persona: Persona, listener_id: str) -> Any:
    return client.get(f"/webhooks/listeners/{listener_id}/events", headers=persona.headers)


def make_key(client: FlaskClient, persona: Persona, name: str) -> None:
    """A key made with ``persona``: its ``key.created`` event, in the persona's mode."""
    assert client.post("/api/keys", json={"name": name}, headers=persona.headers).status_code == 201


def test_an_acknowledged_event_is_not_answered_again(client: FlaskClient) -> None:
    live, test = open_twins()
    listener = open_listener(client, test)
    make_key(client, live, "made live")  # another mode's event: not this listener's
    make_key(client, test, "made in test mode")

    [event] = poll(client, test, listener["id"]).get_json()["data"]
    assert (event["type"], event["data"]["name"], event["livemode"]) == (
        "key.created",
        "made in test mode",
        False,
    )
    path = f"/webhooks/listeners/{listener['id']}/acknowledge"
    first = client.post(path, json={"eventIds": [event["id"]]}, headers=test.headers).get_json()
    again = client.post(path, json={"eventIds": [event["id"]]}, headers=test.headers).get_json()

    assert (first["acknowledged"], again["acknowledged"]) == (1, 0)
    assert poll(client, test, listener["id"]).get_json()["data"] == []


def test_a_listener_lives_while_polled_and_ends_ten_minutes_after_the_last_poll(
    frozen_clock: None, client: FlaskClient
) -> None:
    _, test = open_twins()
    listener = open_listener(client, test)
    clock.move(IDLE - timedelta(minutes=1))
    assert poll(client, test, listener["id"]).status_code == 200
    clock.move(IDLE - timedelta(minutes=1))
    assert poll(client, test, listener["id"]).status_code == 200

    clock.move(IDLE)
    make_key(client, test, "made after it expired")
    expired = poll(client, test, listener["id"])
    assert expired.status_code == 404
    assert "expired after 10 minutes without a poll" in expired.get_data(as_text=True)

    fresh = open_listener(client, test)
    assert poll(client, test, fresh["id"]).get_json()["data"] == []  # nothing from before it opened
    with transaction() as session:
        left = select(func.count()).where(EventListener.account_id == test.account_id)
        assert session.scalar(left) == 1  # the expired one went when this one opened
