"""/openapi.json describes every route the app serves, validly, with the scope each one needs."""

from __future__ import annotations

import re

from openapi_spec_validator import validate

from web.auth import PUBLIC, SCOPE


def served_operations(app) -> set[tuple[str, str]]:
    return {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static" and not rule.endpoint.startswith("dashboard.")  # pages, not API
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }


def test_the_document_lists_exactly_the_routes_of_the_app(app, client) -> None:
    document = client.get("/openapi.json").json
    described = {(path, method) for path, item in document["paths"].items() for method in item}
    assert described == served_operations(app)


def test_the_document_is_valid_openapi_3_1(client) -> None:
    document = client.get("/openapi.json").json
    assert document["openapi"] == "3.1.0"
    validate(document)


def test_every_authenticated_route_names_its_scope_and_public_ones_need_no_key(app, client) -> None:
    document = client.get("/openapi.json").json
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        if rule.endpoint == "static":
            continue
        assert getattr(view, PUBLIC, False) or getattr(view, SCOPE, None), f"{rule.rule} has no scope"
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if operation.get("security") == []:
                assert "401" not in operation["responses"], (path, method)
            elif operation.get("security") == [{"InboundSecret": []}, {"InboundBearer": []}]:
                # an inbound source: its own secret, never an API key, so no scope
                assert "x-required-scope" not in operation, (path, method)
                assert operation["responses"]["401"]["content"]["application/json"]["schema"]
            else:
                assert operation["x-required-scope"], (path, method)
                assert operation["responses"]["401"]["content"]["application/json"]["schema"]


def test_documented_request_schema_matches_what_the_api_accepts(client) -> None:
    document = client.get("/openapi.json").json
    create = document["paths"]["/api/keys"]["post"]
    schema_name = create["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    properties = document["components"]["schemas"][schema_name]["properties"]
    assert set(properties) == {
        "name",
        "scopes",
        "allowedIps",
        "autoRotate",
        "allowedOrigins",
        "livemode",
        "publishableDailyBudget",
        "publishableMonthlyBudget",
    }
    assert create["x-required-scope"] == "keys:write"
    assert create["x-publishable-key-allowed"] is False
