"""A test key never creates, changes or reads a live object, whatever its scopes: every API route, asked by a
``*:*`` test key about a reseller's live objects (``live_world``).

``API`` holds one decision per route of the url map: refused (LIVE_MODE_REQUIRED: reseller features, a live
key), the other mode's id answers 404 as another account's, or the route works on test mode's own objects.
A route added without a decision here fails ``test_every_api_route_has_a_test_mode_decision``. Every case
then checks that no live row changed (``LiveWorld.snapshot``) and that the answer shows no live marker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from services.resellers.access import IN_LIVE_MODE_ONLY
from tests.fixtures.db import add_key
from tests.sandbox.live_world import ASYNC, LiveWorld, live_app, world
from web.auth import PUBLIC

__all__ = ["live_app", "world"]
REFUSED = "LIVE_MODE_REQUIRED"


@dataclass(frozen=True)
class Case:
    """What a test key asks (body, headers) and is answered (status, and the error code if any)."""

    status: int
    body: Any = None
    code: str | None = None
    headers: dict[str, str] | None = None
    # Whose shapes another change owns (usage per mode): here only isolation is asserted.
    note: str = ""


def refused(body: Any = None) -> Case:
    return Case(403, body, REFUSED)


NOT_FOUND = Case(404)
SUB_USER = {"email": "sneaky@example.com", "name": "Sneaky", "tier": "enterprise"}
API: dict[tuple[str, str], Case] = {
    # keys: a test key manages test keys; a live one is refused, a live id is unknown
    ("POST", "/api/keys"): refused({"name": "Sneaky live key", "livemode": True, "scopes": ["*:*"]}),
    ("GET", "/api/keys"): Case(200),
    ("GET", "/api/keys/<int:key_id>"): NOT_FOUND,
    ("PATCH", "/api/keys/<int:key_id>"): Case(404, {"name": "Taken over", "scopes": ["*:*"]}),
    ("DELETE", "/api/keys/<int:key_id>"): NOT_FOUND,
    ("POST", "/api/keys/<int:key_id>/refresh"): NOT_FOUND,
    ("POST", "/api/keys/<int:key_id>/reveal-secret"): NOT_FOUND,
    ("POST", "/api/keys/revoke-all"): Case(200),  # the test keys only
    ("GET", "/api/audit-log"): Case(200),
    ("GET", "/api/usage"): Case(200, note="per-mode usage is another change's; here: nothing live shown"),
    # validation: sandbox answers, test-mode jobs
    ("POST", "/validate"): Case(200, {"email": "deliverable@example.com", "options": {"quickMode": True}}),
    ("POST", "/validate/batch"): Case(202, {"emails": ["full@example.com"]}, headers=ASYNC),
    ("POST", "/validate/browser"): Case(403, {"email": "x@example.com"}, "INSUFFICIENT_PERMISSIONS"),
    ("POST", "/validate/confirm"): Case(
        422, {"email": "not-an-address", "token": "<token>"}, "TOKEN_OF_ANOTHER_ACCOUNT"
    ),
    ("GET", "/batches/<batch_id>/results"): NOT_FOUND,
    ("POST", "/bulk/jobs"): Case(202, ["deliverable@example.com"], headers=ASYNC),
    ("GET", "/bulk/jobs/<job_id>"): NOT_FOUND,
    ("POST", "/bulk/jobs/<job_id>/cancel"): NOT_FOUND,
    ("GET", "/bulk/jobs/<job_id>/download"): NOT_FOUND,
    # monitored lists: test mode's own; a live list (or a live job to keep) is unknown
    ("POST", "/monitored-lists"): Case(404, {"jobId": "<job_id>", "schedule": "weekly"}),
    ("GET", "/monitored-lists"): Case(200),
    ("GET", "/monitored-lists/<list_id>"): NOT_FOUND,
    ("PATCH", "/monitored-lists/<list_id>"): Case(404, {"paused": True}),
    ("DELETE", "/monitored-lists/<list_id>"): NOT_FOUND,
    ("GET", "/monitored-lists/<list_id>/runs/<int:number>/diff"): NOT_FOUND,
    # webhooks: test mode's own endpoints
    ("POST", "/webhooks"): Case(201, {"url": "https://127.0.0.1:9/sandbox-hook", "events": ["key.created"]}),
    ("GET", "/webhooks"): Case(200),
    ("GET", "/webhooks/<int:endpoint_id>"): NOT_FOUND,
    ("PATCH", "/webhooks/<int:endpoint_id>"): Case(404, {"events": ["batch.completed"]}),
    ("DELETE", "/webhooks/<int:endpoint_id>"): NOT_FOUND,
    ("GET", "/webhooks/<int:endpoint_id>/deliveries"): NOT_FOUND,
    ("POST", "/webhooks/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver"): NOT_FOUND,
    ("POST", "/webhooks/<int:endpoint_id>/rotate-secret"): NOT_FOUND,
    ("POST", "/webhooks/test"): Case(404, {"type": "key.created", "endpointId": "<int:endpoint_id>"}),
    # event listeners: test mode's own; a live listener's id is unknown
    ("POST", "/webhooks/listeners"): Case(201, {"events": ["batch.completed"]}),
    ("GET", "/webhooks/listeners/<listener_id>/events"): NOT_FOUND,
    ("POST", "/webhooks/listeners/<listener_id>/acknowledge"): Case(404, {"eventIds": ["evt_" + "0" * 32]}),
    ("DELETE", "/webhooks/listeners/<listener_id>"): NOT_FOUND,
    # suppression: test mode keeps its own list and sources; a live entry or source is unknown
    ("GET", "/suppression"): Case(200),
    ("POST", "/suppression"): Case(201, {"email": "bounced@example.com"}),
    ("GET", "/suppression/addresses/<email>"): NOT_FOUND,
    ("DELETE", "/suppression/addresses/<email>"): NOT_FOUND,
    ("POST", "/suppression/import"): Case(415, note="a JSON body: refused before anything is read"),
    ("GET", "/suppression/export"): Case(200),
    ("GET", "/suppression/sources"): Case(200),
    ("POST", "/suppression/sources"): Case(201, {"kind": "postmark", "name": "Sandbox Postmark"}),
    ("DELETE", "/suppression/sources/<source_id>"): NOT_FOUND,
    # Enterprise Plus: live mode only, whatever the id
    ("POST", "/api/sub-users"): refused(SUB_USER),
    ("GET", "/api/sub-users"): refused(),
    ("GET", "/api/sub-users/<sub_id>"): refused(),
    ("PATCH", "/api/sub-users/<sub_id>"): refused({"tier": "enterprise", "status": "suspended"}),
    ("DELETE", "/api/sub-users/<sub_id>"): refused(),
    ("GET", "/api/sub-users/<sub_id>/usage"): refused(),
    ("GET", "/api/commissions"): refused(),
    ("GET", "/api/white-label"): refused(),
    ("PUT", "/api/white-label"): refused({"enabled": False}),
    ("POST", "/api/custom-domains"): refused({"hostname": "api.sneaky.test"}),
    ("GET", "/api/custom-domains"): refused(),
    ("GET", "/api/custom-domains/<domain_id>"): refused(),
    ("DELETE", "/api/custom-domains/<domain_id>"): refused(),
    ("POST", "/api/custom-domains/<domain_id>/verify"): refused(),
}


def api_routes(app: Flask) -> set[tuple[str, str]]:
    """Every (method, rule) a key may call: the url map less the dashboard and the public routes."""
    return {
        (method, rule.rule)
        for rule in app.url_map.iter_rules()
        if not rule.endpoint.startswith("dashboard.")
        and not getattr(app.view_functions[rule.endpoint], PUBLIC, False)
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }


@pytest.fixture
def test_key(world: LiveWorld) -> dict[str, str]:
    """A fresh ``*:*`` test key of the reseller (revoke-all by one must not stop the next case)."""
    return add_key(world.live.account_id, "Sandbox admin", ("*:*",), livemode=False).headers


def test_every_api_route_has_a_test_mode_decision(live_app: Flask) -> None:
    assert api_routes(live_app) == set(API)


def test_the_live_key_reaches_every_live_object_the_matrix_asks_about(
    live_app: Flask, world: LiveWorld
) -> None:
    """So a 404 below means "not yours in test mode", not "no such object"."""
    client = live_app.test_client()
    for rule in (
        "/api/keys/<int:key_id>",
        "/webhooks/<int:endpoint_id>/deliveries",
        "/bulk/jobs/<job_id>",
        "/monitored-lists/<list_id>",
    ):
        response = client.get(world.fill(rule), headers=world.live.headers)
        assert response.status_code == 200, (rule, response.get_json())
    assert client.get(world.fill("/batches/<batch_id>/results"), headers=world.live.headers).status_code in {
        200,
        202,
    }
    for rule in ("/api/sub-users/<sub_id>", "/api/custom-domains/<domain_id>", "/api/white-label"):
        assert client.get(world.fill(rule), headers=world.live.headers).status_code == 200, rule


@pytest.mark.parametrize(("method", "rule"), sorted(API))
def test_a_test_key_reaches_no_live_object(
    live_app: Flask, world: LiveWorld, test_key: dict[str, str], method: str, rule: str
) -> None:
    case = API[(method, rule)]
    body = world.fill_body(case.body)
    before = world.snapshot()

    path = world.fill(rule)
    response = send(live_app.test_client(), method, path, body, {**test_key, **(case.headers or {})})

    assert response.status_code == case.status, response.get_data(as_text=True)
    if case.code is not None:
        assert response.get_json()["error"]["code"] == case.code
    if case.code == REFUSED:
        assert "live mode" in response.get_json()["error"]["message"]
    assert world.shown_in(response.get_data(as_text=True), asked=f"{path} {body}") == []
    assert world.snapshot() == before


def send(client: FlaskClient, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.open(path, method=method, json=body, headers=headers)


def test_what_a_test_key_makes_is_test_mode_s_own(
    live_app: Flask, world: LiveWorld, test_key: dict[str, str]
) -> None:
    client = live_app.test_client()
    made = client.post("/validate", json=API[("POST", "/validate")].body, headers=test_key).get_json()
    key = client.post("/api/keys", json={"name": "Sandbox CI key"}, headers=test_key).get_json()

    assert made["livemode"] is False
    assert (key["livemode"], key["secretKey"][:8]) == (False, "sk_test_")
    live_keys = client.get("/api/keys", headers=world.live.headers).get_json()["data"]
    assert key["id"] not in [listed["id"] for listed in live_keys]


def test_a_test_key_with_reseller_scopes_is_refused_before_its_scopes_are_read(
    live_app: Flask, world: LiveWorld
) -> None:
    narrow = add_key(world.live.account_id, "Sandbox reader", ("validate:read",), livemode=False)
    response = live_app.test_client().get("/api/commissions", headers=narrow.headers)
    assert response.status_code == 403
    assert response.get_json()["error"] == {
        "code": REFUSED,
        "message": f"{IN_LIVE_MODE_ONLY} This request was made in test mode. Use a live key (sk_live_...), "
        "or switch the dashboard to live data.",
        "mode": "test",
        "requiredMode": "live",
    }


def test_the_api_description_names_live_mode_required_where_it_can_answer(live_app: Flask) -> None:
    document = live_app.test_client().get("/openapi.json").get_json()
    for (method, rule), case in API.items():
        if case.code != REFUSED:
            continue
        path = rule.replace("<int:", "{").replace("<", "{").replace(">", "}")
        forbidden = document["paths"][path][method.lower()]["responses"]["403"]["description"]
        assert "`LIVE_MODE_REQUIRED`" in forbidden, (method, rule)
