"""No input answers 5xx: odd timestamps, huge integers and odd Unicode are 400s naming the field (or 404s
for ids in the path that cannot exist)."""

from __future__ import annotations

import pytest

from tests.fixtures.db import Persona

HUGE = "9" * 30


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("since=3886-06-12T00:58:34+22:18&until=5823-12-22T06:04:52Z", "since"),
        ("until=5823-12-22T06:04:52Z", "until"),
        ("since=2200-01-01T00:00:00Z", "since"),  # far future
        ("since=0001-01-01T00:00:00%2B01:00", "since"),  # far past, and UTC would be year 0
        ("since=1969-12-31T23:59:59Z", "since"),
        ("since=2026-01-01T00:00:00%2B14:01", "since"),  # no zone is that far from UTC
        ("since=2026-01-01T00:00:00", "since"),  # no zone at all
        ("since=2026-01-01", "since"),
        ("since=1700000000", "since"),  # Unix seconds are not RFC 3339
        ("since=2026-02-30T00:00:00Z", "since"),
        ("since=2026-01-01%2000:00:00Z", "since"),  # a space for the T
        ("since=%00", "since"),
        (f"startingAfter={HUGE}", "startingAfter"),
        (f"limit={HUGE}", "limit"),
        ("limit=-1", "limit"),
        ("type=%F0%9F%92%A9", "type[0]"),
    ],
)
def test_bad_audit_log_filters_are_400s_naming_the_field(
    client, owner: Persona, query: str, field: str
) -> None:
    response = client.get(f"/api/audit-log?{query}", headers=owner.headers)
    assert response.status_code == 400, response.json
    assert response.json["field"] == field


def test_timestamps_in_range_with_any_real_offset_are_accepted(client, owner: Persona) -> None:
    query = "since=1970-01-01T00:00:00%2B14:00&until=2099-12-31T23:59:59.999999-12:00"
    response = client.get(f"/api/audit-log?{query}", headers=owner.headers)
    assert response.status_code == 200, response.json


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/api/keys/{HUGE}"),
        ("get", f"/webhooks/{HUGE}"),
        ("get", f"/webhooks/{HUGE}/deliveries"),
        ("post", f"/webhooks/1/deliveries/{HUGE}/redeliver"),
        # one past bigint, where a rule of another method matching the path used to make it a 405
        ("delete", "/api/keys/9223372036854775808"),
        ("patch", "/api/keys/9223372036854775808"),
        ("delete", "/webhooks/9223372036854775808"),
        ("patch", "/webhooks/0009223372036854775808"),
    ],
)
def test_ids_in_the_path_too_large_for_any_row_are_404s(
    client, owner: Persona, method: str, path: str
) -> None:
    response = client.open(path, method=method, headers=owner.headers, json={"name": "renamed"})
    assert response.status_code == 404


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("/webhooks/1/deliveries", f"startingAfter={HUGE}", "startingAfter"),
        ("/batches/bat_x/results", f"startingAfter={HUGE}", "startingAfter"),
    ],
)
def test_huge_integers_in_queries_are_400s(client, owner: Persona, path: str, query: str, field: str) -> None:
    response = client.get(f"{path}?{query}", headers=owner.headers)
    assert (response.status_code, response.json["field"]) == (400, field)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"name": "Nul \\u0000 key"}', "name"),
        ('{"name": "Lone \\ud800 surrogate"}', "name"),
        ('{"name": "Server key", "allowedIps": ["\\udfff"]}', "allowedIps[0]"),
        ('{"name": "Server key", "\\u0000": 1}', "body"),
    ],
)
def test_text_no_database_can_hold_is_a_400_naming_the_field(
    client, owner: Persona, body: str, field: str
) -> None:
    response = client.post(
        "/api/keys", data=body, headers=owner.headers | {"Content-Type": "application/json"}
    )
    assert (response.status_code, response.json["field"]) == (400, field)


def test_test_send_with_an_endpoint_id_past_bigint_is_a_400(client, owner: Persona) -> None:
    response = client.post(
        "/webhooks/test", json={"type": "quota.reset", "endpointId": 2**63}, headers=owner.headers
    )
    assert (response.status_code, response.json["field"]) == (400, "endpointId")


def test_an_id_written_as_an_integral_json_number_is_that_integer(client, owner: Persona) -> None:
    """JSON Schema calls 1001.0 an integer, as /openapi.json's clients may; 1001.5 is not one."""
    whole = client.post(
        "/webhooks/test", json={"type": "quota.reset", "endpointId": 1001.0}, headers=owner.headers
    )
    assert whole.status_code == 404  # no endpoint 1001 in this account, but a well-formed request
    assert "1001" in whole.json["message"]
    fraction = client.post(
        "/webhooks/test", json={"type": "quota.reset", "endpointId": 1001.5}, headers=owner.headers
    )
    assert (fraction.status_code, fraction.json["field"]) == (400, "endpointId")
