"""The scope matrix: each scope of spec 5.3 against each route; wildcards; what a refusal says."""

from __future__ import annotations

import pytest

from services.scopes import SCOPES, grants
from tests.fixtures.db import add_key, open_persona
from tests.web.routes import ROUTES


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize(("method", "path", "required"), ROUTES)
def test_each_scope_reaches_exactly_the_routes_it_grants(client, scope, method, path, required) -> None:
    holder = add_key(open_persona().account_id, f"holds {scope}", (scope,))
    # An invalid body: a permitted call stops at validation (400) or at the missing id (404), never
    # changing anything, while a refused one stops at the scope check (403) before either.
    response = client.open(path, method=method, headers=holder.headers, json={"bogus": True})
    if grants(scope, required):
        assert response.status_code not in (401, 403), response.json
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
