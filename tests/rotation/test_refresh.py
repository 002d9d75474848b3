"""A manual refresh restarts the 90-day clock: the milestones start over from the refresh."""

from __future__ import annotations

from datetime import timedelta

from flask.testing import FlaskClient

from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, mail_about, sweep


def subjects(mailbox: Mailbox, owner: Persona, key_id: int) -> list[str]:
    return [str(mail.message["Subject"]) for mail in mail_about(mailbox, owner.account_id, key_id)]


def test_a_refresh_after_the_first_warning_restarts_the_clock(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = create_key(client, owner, "Mobile backend", auto_rotate=False).id
    timeline.at(83)
    sweep()
    timeline.at(84)
    refreshed = client.post(f"/api/keys/{key_id}/refresh", headers=owner.headers)
    assert refreshed.status_code == 200
    secret = refreshed.get_json()["key"]["secretKey"]

    for day in range(85, 84 + 83):  # up to the day before the refreshed secret's own day 83
        timeline.at(day)
        sweep()
    assert subjects(mailbox, owner, key_id) == [
        "Your API key “Mobile backend” must be refreshed within 7 day(s)"
    ]
    assert client.get(f"/api/keys/{key_id}", headers={"X-API-Key": secret}).status_code == 200

    timeline.at(84 + 83)
    sweep()
    assert subjects(mailbox, owner, key_id)[1:] == [
        "Your API key “Mobile backend” must be refreshed within 7 day(s)"
    ]


def test_a_refresh_during_grace_brings_the_key_back_to_active_without_the_warning_header(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = create_key(client, owner, "Partner export", auto_rotate=False).id
    timeline.at(93)
    sweep()
    refreshed = client.post(f"/api/keys/{key_id}/refresh", headers=owner.headers)
    secret = refreshed.get_json()["key"]["secretKey"]

    timeline.at(100)
    sweep()
    response = client.get(f"/api/keys/{key_id}", headers={"X-API-Key": secret})

    assert response.status_code == 200
    assert response.get_json()["status"] == "active"
    assert "X-API-Key-Warning" not in response.headers
    assert subjects(mailbox, owner, key_id) == [
        f"Your API key “Partner export” stops working on {stops(timeline)}"
    ]


def stops(timeline: Timeline) -> str:
    return f"{timeline.day0 + timedelta(days=97):%Y-%m-%d %H:%M} UTC"
