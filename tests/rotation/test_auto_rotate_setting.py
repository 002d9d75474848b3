"""Auto-rotate is a per-key setting, at creation or later through PATCH /api/keys/:id."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.fixtures.db import Persona
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, mail_about, sweep


def turn_on_auto_rotate(client: FlaskClient, owner: Persona, key_id: int) -> None:
    response = client.patch(f"/api/keys/{key_id}", json={"autoRotate": True}, headers=owner.headers)
    assert response.status_code == 200
    assert response.get_json()["autoRotate"] is True


def last_subject(mailbox: Mailbox, owner: Persona, key_id: int) -> str:
    return str(mail_about(mailbox, owner.account_id, key_id)[-1].message["Subject"])


def test_auto_rotate_turned_on_later_rotates_on_day_90_instead_of_grace(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Late adopter", auto_rotate=False)
    timeline.at(10)
    turn_on_auto_rotate(client, owner, created.id)
    timeline.at(90)
    sweep()

    key = client.get(f"/api/keys/{created.id}", headers=owner.headers).get_json()
    assert key["status"] == "active"
    assert key["secretKeyHint"][-4:] != created.secret[-4:]
    assert (
        last_subject(mailbox, owner, created.id)
        == "Your API key “Late adopter” was rotated: reveal its new secret"
    )


def test_auto_rotate_turned_on_during_grace_rotates_at_the_next_sweep(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    created = create_key(client, owner, "Grace saver", auto_rotate=False)
    timeline.at(92)
    sweep()
    turn_on_auto_rotate(client, owner, created.id)
    timeline.at(92.01)
    sweep()

    old = client.get(f"/api/keys/{created.id}", headers={"X-API-Key": created.secret})
    revealed = client.post(f"/api/keys/{created.id}/reveal-secret", headers=owner.headers)
    assert old.status_code == 401
    assert revealed.status_code == 200
    assert (
        last_subject(mailbox, owner, created.id)
        == "Your API key “Grace saver” was rotated: reveal its new secret"
    )
