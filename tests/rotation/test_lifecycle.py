"""Spec 3.1 over days 0-100 with the real task, a controlled clock and a real SMTP server.

The task runs four times on every day (beat runs it far more often): each milestone must happen once.
"""

from __future__ import annotations

from datetime import timedelta

from flask.testing import FlaskClient
from sqlalchemy import select

from models import ApiKey, AuditEntry
from models.session import transaction
from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, mail_about, sweep

RUNS_PER_DAY = (0.0, 0.25, 0.5, 0.75)


def live_through(timeline: Timeline, days: range, on_day: object = None) -> None:
    for day in days:
        for fraction in RUNS_PER_DAY:
            timeline.at(day + fraction)
            sweep()
        if callable(on_day):
            on_day(day)


def status_of(key_id: int) -> str:
    with transaction() as session:
        return session.get_one(ApiKey, key_id).status


def test_a_key_without_auto_rotate_is_warned_then_graced_then_deactivated(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Billing server", auto_rotate=False)
    key_id, secret = created.id, created.secret
    statuses: dict[int, str] = {}
    arrivals: dict[int, list[str]] = {}
    seen = 0

    def record(day: int) -> None:
        nonlocal seen
        statuses[day] = status_of(key_id)
        mails = mail_about(mailbox, owner.account_id, key_id)
        arrivals[day], seen = [str(mail.message["Subject"]) for mail in mails[seen:]], len(mails)

    live_through(timeline, range(101), record)

    stops_at = f"{timeline.day0 + timedelta(days=97):%Y-%m-%d %H:%M} UTC"
    assert {day: subjects for day, subjects in arrivals.items() if subjects} == {
        83: ["Your API key “Billing server” must be refreshed within 7 day(s)"],
        86: ["Your API key “Billing server” must be refreshed within 4 day(s)"],
        89: ["Your API key “Billing server” must be refreshed within 1 day(s)"],
        90: [f"Your API key “Billing server” stops working on {stops_at}"],
        97: ["Your API key “Billing server” was deactivated"],
    }
    assert {statuses[day] for day in range(90)} == {"active"}
    assert {statuses[day] for day in range(90, 97)} == {"grace"}
    assert {statuses[day] for day in range(97, 101)} == {"inactive"}
    response = client.get(f"/api/keys/{key_id}", headers={"X-API-Key": secret})
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "INVALID_API_KEY"
    assert deactivation_audit(key_id) == [{"keyId": key_id, "reason": "rotation-overdue"}]


def test_a_key_with_auto_rotate_gets_a_new_secret_on_day_90_and_starts_again(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Signup form", auto_rotate=True)
    key_id, old_secret = created.id, created.secret

    live_through(timeline, range(90))
    assert client.get(f"/api/keys/{key_id}", headers={"X-API-Key": old_secret}).status_code == 200
    live_through(timeline, range(90, 92))

    old = client.get(f"/api/keys/{key_id}", headers={"X-API-Key": old_secret})
    assert (old.status_code, old.get_json()["error"]["code"]) == (401, "INVALID_API_KEY")
    revealed = client.post(f"/api/keys/{key_id}/reveal-secret", headers=owner.headers)
    assert revealed.status_code == 200
    new_secret = revealed.get_json()["key"]["secretKey"]
    assert new_secret.startswith("sk_live_")
    assert new_secret != old_secret
    live_through(timeline, range(92, 101))

    subjects = [str(mail.message["Subject"]) for mail in mail_about(mailbox, owner.account_id, key_id)]
    assert subjects == [
        "Your API key “Signup form” will be rotated in 7 day(s)",
        "Your API key “Signup form” will be rotated in 4 day(s)",
        "Your API key “Signup form” will be rotated in 1 day(s)",
        "Your API key “Signup form” was rotated: reveal its new secret",
    ]
    assert status_of(key_id) == "active"
    read = client.get(f"/api/keys/{key_id}", headers={"X-API-Key": new_secret})
    assert read.status_code == 200
    assert read.get_json()["secretIssuedAt"].startswith(f"{timeline.day0 + timedelta(days=90):%Y-%m-%d}")
    assert all(new_secret not in mail.message.as_string() for mail in mailbox.received)


def test_a_key_in_grace_says_when_it_stops_working_on_every_response(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Reporting job", auto_rotate=False)
    key_id, secret = created.id, created.secret
    headers = {"X-API-Key": secret}

    timeline.at(89)
    sweep()
    before = client.get(f"/api/keys/{key_id}", headers=headers)
    timeline.at(92)
    sweep()
    during = client.get(f"/api/keys/{key_id}", headers=headers)
    refused = client.get("/api/keys/999999999", headers=headers)

    assert "X-API-Key-Warning" not in before.headers
    stops_at = f"{timeline.day0 + timedelta(days=97):%Y-%m-%dT%H:%M:%S}.000Z"
    assert during.status_code == 200
    assert during.headers["X-API-Key-Expires"] == stops_at
    assert stops_at in during.headers["X-API-Key-Warning"]
    assert f"/api/keys/{key_id}/refresh" in during.headers["X-API-Key-Warning"]
    assert refused.status_code == 404
    assert refused.headers["X-API-Key-Expires"] == stops_at


def deactivation_audit(key_id: int) -> list[dict[str, object]]:
    stmt = select(AuditEntry.details).where(AuditEntry.event == "key.deactivated")
    with transaction() as session:
        return [details for details in session.scalars(stmt) if details.get("keyId") == key_id]
