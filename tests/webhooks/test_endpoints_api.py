"""Endpoint management through the API: what the owner, a narrower key and an outsider each see."""

from __future__ import annotations

from flask.testing import FlaskClient

from models import WebhookEndpoint
from models import session as db_session
from services.webhooks.endpoints import MAX_ENDPOINTS, MAX_URL_LENGTH
from tests.fixtures.db import Persona, add_key
from tests.webhooks.receiver import Receiver


def create(client: FlaskClient, persona: Persona, url: str, events: list[str] | None = None):
    body = {"url": url, "events": events or ["batch.completed"]}
    return client.post("/webhooks", json=body, headers=persona.headers)


def test_create_returns_the_secret_once_and_list_never_shows_it(
    client: FlaskClient, owner: Persona, receiver: Receiver
) -> None:
    created = create(client, owner, receiver.url(), ["key.created", "batch.completed"])
    assert created.status_code == 201
    body = created.get_json()
    assert body["secret"].startswith("whsec_")
    assert body["url"] == receiver.url()
    assert body["events"] == ["batch.completed", "key.created"]  # spec 6.1 order, each once
    assert body["status"] == "enabled"
    listed = client.get("/webhooks", headers=owner.headers).get_json()["data"]
    assert [item["id"] for item in listed] == [body["id"]]
    assert "secret" not in listed[0]
    assert "secret" not in client.get(f"/webhooks/{body['id']}", headers=owner.headers).get_json()


def test_plain_http_url_is_a_400_naming_url(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    response = create(client, owner, f"http://localhost:{receiver.port}/hooks")
    assert response.status_code == 400
    assert response.get_json()["error"] == "Bad Request"
    assert response.get_json()["field"] == "url"
    assert "https" in response.get_json()["message"]


def test_unknown_event_type_is_a_400_naming_the_entry(
    client: FlaskClient, owner: Persona, receiver: Receiver
) -> None:
    response = create(client, owner, receiver.url(), ["batch.completed", "batch.started"])
    assert response.status_code == 400
    assert response.get_json()["field"] == "events[1]"
    assert "batch.started" in response.get_json()["message"]


def test_empty_events_and_overlong_url_are_refused(
    client: FlaskClient, owner: Persona, receiver: Receiver
) -> None:
    empty = client.post("/webhooks", json={"url": receiver.url(), "events": []}, headers=owner.headers)
    assert (empty.status_code, empty.get_json()["field"]) == (400, "events")
    long_url = receiver.url() + "?" + "a" * MAX_URL_LENGTH
    assert create(client, owner, long_url).get_json()["field"] == "url"


def test_credentials_in_url_are_refused(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    response = create(client, owner, f"https://user:pw@localhost:{receiver.port}/hooks")
    assert (response.status_code, response.get_json()["field"]) == (400, "url")


def test_loopback_target_refused_at_creation_when_setting_off(client: FlaskClient, owner: Persona) -> None:
    # No ``webhook_env`` here: WEBHOOK_ALLOW_LOOPBACK is off, as in production.
    response = create(client, owner, "https://localhost:8443/hooks")
    assert (response.status_code, response.get_json()["field"]) == (400, "url")
    assert "loopback" in response.get_json()["message"]
    private = create(client, owner, "https://10.0.0.8/hooks")
    assert "private" in private.get_json()["message"]
    metadata = create(client, owner, "https://169.254.169.254/latest/meta-data")
    assert "link-local" in metadata.get_json()["message"]


def test_endpoint_limit_per_account(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    for _ in range(MAX_ENDPOINTS):
        assert create(client, owner, receiver.url()).status_code == 201
    refused = create(client, owner, receiver.url())
    assert refused.status_code == 403
    assert refused.get_json()["error"]["code"] == "WEBHOOK_ENDPOINT_LIMIT_REACHED"
    assert refused.get_json()["error"]["limit"] == MAX_ENDPOINTS


def test_update_events_and_status(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    endpoint_id = create(client, owner, receiver.url()).get_json()["id"]
    changed = client.patch(
        f"/webhooks/{endpoint_id}",
        json={"events": ["quota.warning", "quota.exceeded"], "status": "disabled"},
        headers=owner.headers,
    )
    assert changed.status_code == 200
    assert changed.get_json()["events"] == ["quota.warning", "quota.exceeded"]
    assert changed.get_json()["status"] == "disabled"
    nothing = client.patch(f"/webhooks/{endpoint_id}", json={}, headers=owner.headers)
    assert nothing.status_code == 400


def test_rotate_secret_returns_a_new_secret_that_is_stored(
    client: FlaskClient, owner: Persona, receiver: Receiver
) -> None:
    created = create(client, owner, receiver.url()).get_json()
    rotated = client.post(f"/webhooks/{created['id']}/rotate-secret", headers=owner.headers)
    assert rotated.status_code == 200
    assert rotated.get_json()["secret"] != created["secret"]
    with db_session.transaction() as session:
        assert session.get_one(WebhookEndpoint, created["id"]).secret == rotated.get_json()["secret"]


def test_delete_removes_the_endpoint(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    endpoint_id = create(client, owner, receiver.url()).get_json()["id"]
    assert client.delete(f"/webhooks/{endpoint_id}", headers=owner.headers).get_json()["deleted"] is True
    assert client.get(f"/webhooks/{endpoint_id}", headers=owner.headers).status_code == 404


def test_outsider_sees_404_on_every_route_and_changes_nothing(
    client: FlaskClient, owner: Persona, outsider: Persona, receiver: Receiver
) -> None:
    endpoint_id = create(client, owner, receiver.url()).get_json()["id"]
    h = outsider.headers
    calls = [
        client.get(f"/webhooks/{endpoint_id}", headers=h),
        client.patch(f"/webhooks/{endpoint_id}", json={"status": "disabled"}, headers=h),
        client.post(f"/webhooks/{endpoint_id}/rotate-secret", headers=h),
        client.get(f"/webhooks/{endpoint_id}/deliveries", headers=h),
        client.post(f"/webhooks/{endpoint_id}/deliveries/1/redeliver", headers=h),
        client.post("/webhooks/test", json={"type": "quota.reset", "endpointId": endpoint_id}, headers=h),
        client.delete(f"/webhooks/{endpoint_id}", headers=h),
    ]
    assert [call.status_code for call in calls] == [404] * len(calls)
    assert client.get("/webhooks", headers=h).get_json()["data"] == []
    assert client.get(f"/webhooks/{endpoint_id}", headers=owner.headers).get_json()["status"] == "enabled"
    assert receiver.received == []


def test_read_scope_reads_but_cannot_write(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    endpoint_id = create(client, owner, receiver.url()).get_json()["id"]
    reader = add_key(owner.account_id, "Webhook reader", ("webhooks:read",))
    assert client.get("/webhooks", headers=reader.headers).status_code == 200
    assert client.get(f"/webhooks/{endpoint_id}/deliveries", headers=reader.headers).status_code == 200
    denied = [
        create(client, reader, receiver.url()),
        client.patch(f"/webhooks/{endpoint_id}", json={"status": "disabled"}, headers=reader.headers),
        client.post(f"/webhooks/{endpoint_id}/rotate-secret", headers=reader.headers),
        client.post("/webhooks/test", json={"type": "quota.reset"}, headers=reader.headers),
        client.delete(f"/webhooks/{endpoint_id}", headers=reader.headers),
    ]
    for response in denied:
        assert response.status_code == 403
        assert response.get_json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
        assert response.get_json()["error"]["requiredScope"] == "webhooks:write"


def test_write_scope_alone_cannot_read(client: FlaskClient, owner: Persona, receiver: Receiver) -> None:
    writer = add_key(owner.account_id, "Webhook writer", ("webhooks:write",))
    assert create(client, writer, receiver.url()).status_code == 201
    listed = client.get("/webhooks", headers=writer.headers)
    assert listed.status_code == 403
    assert listed.get_json()["error"]["requiredScope"] == "webhooks:read"


def test_member_without_webhook_scopes_is_refused(client: FlaskClient, member: Persona) -> None:
    assert client.get("/webhooks", headers=member.headers).status_code == 403
    assert client.post("/webhooks", json={}, headers=member.headers).status_code == 403


def test_publishable_key_cannot_read_or_manage_webhooks(client: FlaskClient, owner: Persona) -> None:
    # Webhook configuration is server-side business: not even reading it is opened to publishable keys.
    headers = {"X-API-Key": owner.publishable}
    for response in (
        client.get("/webhooks", headers=headers),
        client.post("/webhooks", json={}, headers=headers),
    ):
        assert response.status_code == 403
        assert response.get_json()["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
