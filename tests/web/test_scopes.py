"""The scope matrix: each scope of spec 5.3 against each route; wildcards; what a refusal says."""

from __future__ import annotations

import pytest

from models.accounts import Tier
from services.keys.scopes import SCOPES, grants
from tests.fixtures.db import add_key, open_persona
from tests.web.routes import ALTERNATIVES, PERMITTED, ROUTES
from web.auth import PUBLIC, SCOPE


def test_the_registry_lists_every_authenticated_route(app) -> None:
    served = {
        (method, rule.endpoint, getattr(app.view_functions[rule.endpoint], SCOPE, None))
        for rule in app.url_map.iter_rules()
        if not getattr(app.view_functions[rule.endpoint], PUBLIC, False)
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    urls = app.url_map.bind("localhost")
    assert {(method, urls.match(path, method)[0], scope) for method, path, scope in ROUTES} == served
    assert set(PERMITTED) == {(method, path) for method, path, _ in ROUTES}


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize(("method", "path", "required"), ROUTES)
def test_each_scope_reaches_exactly_the_routes_it_grants(client, scope, method, path, required) -> None:
    # Enterprise Plus reaches every route, so only the scope decides here (other plans: test_plan_gate).
    holder = add_key(open_persona(Tier.ENTERPRISE_PLUS).account_id, f"holds {scope}", (scope,))
    # An invalid body: a permitted call stops at validation (400) or at the missing id (404), never
    # changing anything but revoke-all's keys, while a refused one stops at the scope check (403).
    response = client.open(path, method=method, headers=holder.headers, json={"bogus": True})
    if any(grants(scope, needed) for needed in (required, *ALTERNATIVES.get(path, ()))):
        assert response.status_code == PERMITTED[(method, path)], response.json
    else:
        assert response.status_code == 403
        assert response.json["error"] == {
            "code": "INSUFFICIENT_PERMISSIONS",
            "message": f"This key lacks the {required} scope needed for this request.",
            "requiredScope": required,
            "grantedScopes": [scope],
        }


def test_area_wildcard_covers_every_action_of_its_area_only() -> None:
    assert grants("bulk:*", "bulk:write")
    assert grants("bulk:*", "bulk:read")
    assert not grants("bulk:*", "validate:write")
    assert not grants("validate:read", "validate:write")
    assert grants("*:*", "keys:write")


@pytest.mark.parametrize(("method", "path", "required"), ROUTES)
def test_a_publishable_key_reads_usage_and_validates_from_pages_and_nothing_else(
    client, method, path, required
) -> None:
    # Its publishable twin sits on a *:* key row: scopes alone would let it pass.
    admin = open_persona(Tier.ENTERPRISE_PLUS)
    response = client.open(path, method=method, headers={"X-API-Key": admin.publishable}, json={"bogus": 1})
    if path == "/api/usage":
        assert response.status_code == 200
    elif path == "/validate/browser":
        assert response.status_code == 400  # past the key checks, at the body
    else:
        assert response.status_code == 403
        assert response.json["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
