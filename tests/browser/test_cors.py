"""CORS on the browser endpoint only: a preflight grants nothing, the answer is readable by the key's own
pages, any other page is refused before anything is counted, and secret keys never work there."""

from __future__ import annotations

from tests.browser.helpers import NOT_AN_ADDRESS, OTHER_PAGE, PAGE, form_key, from_page, visitor
from tests.fixtures.db import Persona
from tests.limits.helpers import usage_of

ANSWER_FIELDS = {
    "email",
    "verdict",
    "reason",
    "disposable",
    "role",
    "suggestion",
    "token",
    "expiresAt",
    "authoritative",
    "livemode",
}


def test_a_preflight_lets_any_page_try_the_post_with_the_key_header(client) -> None:
    response = client.options(
        "/validate/browser",
        headers={
            "Origin": OTHER_PAGE,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-api-key",
        },
    )

    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Access-Control-Allow-Methods"] == "POST"
    assert response.headers["Access-Control-Allow-Headers"] == "Content-Type, X-API-Key"
    assert response.headers["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_the_keys_own_page_reads_the_answer_and_nothing_more_than_a_form_needs(
    client, owner: Persona
) -> None:
    form = form_key(owner)

    response = client.post(
        "/validate/browser",
        headers=from_page(form),
        environ_base=visitor(),
        json={"email": NOT_AN_ADDRESS},
    )

    assert response.status_code == 200, response.json
    assert response.headers["Access-Control-Allow-Origin"] == PAGE
    assert "Origin" in response.headers["Vary"]
    assert set(response.json) == ANSWER_FIELDS
    assert (response.json["verdict"], response.json["reason"]) == ("invalid", "syntax")
    assert response.json["authoritative"] is True  # syntax alone decides: the check is finished
    assert usage_of(client, owner.headers)["quota"]["used"] == 1  # a validation like any other


def test_another_page_is_refused_unreadably_before_anything_is_counted(client, owner: Persona) -> None:
    form = form_key(owner)

    response = client.post(
        "/validate/browser",
        headers=from_page(form, OTHER_PAGE),
        environ_base=visitor(),
        json={"email": NOT_AN_ADDRESS},
    )

    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response.headers
    assert response.json["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert OTHER_PAGE in response.json["error"]["message"]
    assert PAGE not in response.json["error"]["message"]  # the key's own pages are not told to strangers
    usage = usage_of(client, owner.headers)
    assert (usage["quota"]["used"], usage["rateLimit"]["usedThisMinute"]) == (0, 0)
    trail = client.get("/api/audit-log?type=auth.origin_denied", headers=owner.headers).json["data"]
    assert trail[0]["details"]["origin"] == OTHER_PAGE
    assert trail[0]["keyId"] == form.key_id


def test_a_request_from_no_page_is_refused_too(client) -> None:
    form = form_key()

    response = client.post(
        "/validate/browser", headers=from_page(form, None), environ_base=visitor(), json={"email": "a@b.test"}
    )

    assert response.status_code == 403
    assert response.json["error"]["code"] == "ORIGIN_NOT_ALLOWED"


def test_a_secret_key_is_refused_on_the_browser_endpoint(client) -> None:
    form = form_key()

    response = client.post(
        "/validate/browser",
        headers={"X-API-Key": form.secret, "Origin": PAGE},
        environ_base=visitor(),
        json={"email": NOT_AN_ADDRESS},
    )

    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response.headers
    assert response.json["error"]["code"] == "INSUFFICIENT_PERMISSIONS"
    assert "publishable key" in response.json["error"]["message"]


def test_every_other_route_answers_pages_without_cors_headers(client, owner: Persona) -> None:
    form = form_key(owner)
    preflight = client.options("/validate", headers={"Origin": PAGE, "Access-Control-Request-Method": "POST"})
    validated = client.post(
        "/validate", headers=owner.headers | {"Origin": PAGE}, json={"email": NOT_AN_ADDRESS}
    )
    usage = client.get("/api/usage", headers={"X-API-Key": form.publishable, "Origin": PAGE})

    for response in (preflight, validated, usage):
        assert "Access-Control-Allow-Origin" not in response.headers, response.request.path
