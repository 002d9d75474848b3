"""An auto-rotated secret is shown once, to a caller who may manage the key, within 7 days; never mailed."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import select

from models import AuditEntry
from models.session import transaction
from tests.fixtures.db import Persona, add_key
from tests.mail.mailbox import Mailbox
from tests.rotation.conftest import Timeline, create_key, sweep


def auto_rotated_key(client: FlaskClient, owner: Persona, timeline: Timeline) -> int:
    key_id = create_key(client, owner, "Nightly import", auto_rotate=True).id
    timeline.at(90)
    sweep()
    return key_id


def reveal(client: FlaskClient, persona: Persona, key_id: int) -> tuple[int, dict[str, Any]]:
    response = client.post(f"/api/keys/{key_id}/reveal-secret", headers=persona.headers)
    return response.status_code, response.get_json()


def test_the_secret_is_revealed_once_and_the_reveal_is_audited(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = auto_rotated_key(client, owner, timeline)

    first_status, first = reveal(client, owner, key_id)
    second_status, second = reveal(client, owner, key_id)

    assert first_status == 200
    secret = first["key"]["secretKey"]
    assert first["key"]["id"] == key_id
    assert second_status == 404
    assert "revealed already" in str(second["message"])
    assert reveal_audit(key_id) == [{"keyId": key_id}]
    assert all(secret not in mail.message.as_string() for mail in mailbox.received)


def test_an_unrevealed_secret_expires_after_seven_days(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = auto_rotated_key(client, owner, timeline)
    timeline.at(97)
    sweep()

    assert reveal(client, owner, key_id)[0] == 404


def test_a_refresh_makes_the_sealed_secret_worthless(
    client: FlaskClient, owner: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    key_id = auto_rotated_key(client, owner, timeline)
    assert client.post(f"/api/keys/{key_id}/refresh", headers=owner.headers).status_code == 200

    assert reveal(client, owner, key_id)[0] == 404


def test_only_a_caller_who_may_manage_the_key_sees_its_secret(
    client: FlaskClient, owner: Persona, outsider: Persona, timeline: Timeline, mailbox: Mailbox
) -> None:
    member = add_key(owner.account_id, "Member server", ("validate:read", "validate:write"))
    key_manager = add_key(owner.account_id, "Key manager", ("keys:write",))
    admin_key = client.post(
        "/api/keys",
        json={"name": "Second admin", "scopes": ["*:*"], "autoRotate": True},
        headers=owner.headers,
    ).get_json()["id"]
    timeline.at(90)
    sweep()

    member_status, member_body = reveal(client, member, admin_key)
    manager_status, manager_body = reveal(client, key_manager, admin_key)
    outsider_status, _ = reveal(client, outsider, admin_key)

    assert (member_status, member_body["error"]["code"]) == (403, "INSUFFICIENT_PERMISSIONS")
    assert (manager_status, manager_body["error"]["requiredScope"]) == (403, "*:*")
    assert outsider_status == 404
    assert reveal(client, owner, admin_key)[0] == 200  # none of the refusals used it up


def reveal_audit(key_id: int) -> list[dict[str, object]]:
    stmt = select(AuditEntry.details).where(AuditEntry.event == "key.secret_revealed")
    with transaction() as session:
        return [details for details in session.scalars(stmt) if details.get("keyId") == key_id]
