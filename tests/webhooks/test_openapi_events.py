"""/openapi.json describes the requests receivers get: one ``webhooks`` entry per event type, whose schema
the payloads the service really builds satisfy, field for field."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from core import clock
from core.times import iso
from models import ApiKey
from services.webhooks import payloads
from services.webhooks.events import EVENT_TYPES
from verifier.results import CheckResult, Severity, ValidationResult

BRAND = {"provider": "Acme", "support": "help@acme.example", "documentation": "https://docs.acme.example"}


def built_payloads() -> dict[str, dict[str, Any]]:
    """Payloads from the builders the code paths call, beside the samples of test sends."""
    key = ApiKey(
        id=7,
        name="Billing server",
        secret_last4="AbCd",
        publishable_key="pk_live_x",
        scopes=["validate:write"],
        allowed_ips=["192.0.2.0/24"],
    )
    checks = {"syntax": CheckResult(check="syntax", passed=True, message="ok")}
    result = ValidationResult(
        email="jane@example.com",
        is_valid=True,
        score=88,
        severity=Severity.VALID,
        checks=checks,
        input="jane@example.com",
    )
    counts = {"total": 3, "valid": 1, "invalid": 1, "warning": 1}
    return {
        "validation.completed": payloads.validation_completed(result.to_dict(), 120, 7, BRAND),
        "batch.completed": payloads.batch_completed("b_1", counts, 900, "https://b.example/x", BRAND),
        "key.created": payloads.key_created(key),
        "key.disabled": payloads.key_disabled(key, "rotation-overdue", clock.now()),
    }


def envelope_validator(
    document: dict[str, Any], event_type: str
) -> tuple[Draft202012Validator, dict[str, Any]]:
    operation = document["webhooks"][event_type]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    data_ref = schema["properties"]["data"]["$ref"].rsplit("/", 1)[1]
    validator = Draft202012Validator({**schema, "components": document["components"]})
    return validator, document["components"]["schemas"][data_ref]


def test_every_event_type_is_described_with_its_signature_headers(client) -> None:
    document = client.get("/openapi.json").json
    assert list(document["webhooks"]) == list(EVENT_TYPES)
    for entry in document["webhooks"].values():
        headers = {parameter["name"] for parameter in entry["post"]["parameters"]}
        assert headers == {"X-Service-Timestamp", "X-Service-Signature"}


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_sent_payloads_match_the_documented_schema_field_for_field(client, event_type: str) -> None:
    validator, data_schema = envelope_validator(client.get("/openapi.json").json, event_type)
    examples = [payloads.sample(event_type, "https://brand.example", BRAND)]
    if event_type in built_payloads():
        examples.append(built_payloads()[event_type])
    for data in examples:
        for livemode in (True, False):
            envelope = {
                "id": "evt_1",
                "type": event_type,
                "timestamp": iso(clock.now()),
                "livemode": livemode,
            }
            validator.validate(envelope | {"data": data})
        assert set(data) == set(data_schema["properties"]) == set(data_schema["required"])
    wrong_type = {
        "id": "evt_1",
        "type": "batch.started",
        "timestamp": "x",
        "livemode": True,
        "data": examples[0],
    }
    assert not validator.is_valid(wrong_type)


def test_the_endpoint_bodies_list_the_event_types_they_accept(client) -> None:
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]

    def body_schema(path: str) -> dict[str, Any]:
        content = document["paths"][path]["post"]["requestBody"]["content"]["application/json"]
        schema: dict[str, Any] = schemas[content["schema"]["$ref"].rsplit("/", 1)[1]]
        return schema

    assert body_schema("/webhooks")["properties"]["events"]["items"]["enum"] == list(EVENT_TYPES)
    assert body_schema("/webhooks/test")["properties"]["type"]["enum"] == list(EVENT_TYPES)
