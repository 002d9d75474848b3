"""Payloads (the envelope's ``data``) of the events spec 6.3 leaves to us, and samples of every type.

One builder per event type keeps each shape in one place; docs/decisions.md describes the same shapes for
receivers. The quota events' builders live with the quota rules (``services.usage.quota_events``).

- ``validation.completed`` carries the verdict (email, isValid, score, severity), which checks passed and
  the processing time, but not the check messages and metadata: receivers that want those call the API,
  and a webhook body stays small and stable.
- ``validation.completed`` and ``batch.completed`` carry the result ``metadata`` brand fields (provider,
  support, documentation; ``services.branding``), so a white-labelled payload names the reseller, not us.
- ``key.created``/``key.disabled`` never carry the secret; they name the key (id, name, last four
  characters of the secret, publishable key) so a receiver can tell keys apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from core.times import iso
from models.keys import ApiKey


def validation_completed(
    result: Mapping[str, Any], processing_ms: int, key_id: int | None, metadata: Mapping[str, str]
) -> dict[str, Any]:
    """From the spec 2.1 result object (``ValidationResult.to_dict()``) of one single validation."""
    checks: Mapping[str, Mapping[str, Any]] = result.get("checks", {})
    return {
        "email": result["email"],
        "isValid": result["isValid"],
        "score": result["score"],
        "severity": result["severity"],
        "checks": {name: bool(check.get("passed")) for name, check in checks.items()},
        "processingTime": processing_ms,
        "keyId": key_id,
        "metadata": dict(metadata),
    }


def batch_completed(
    batch_id: str,
    counts: Mapping[str, int],
    processing_ms: int,
    results_url: str,
    metadata: Mapping[str, str],
) -> dict[str, Any]:
    """Spec 6.3; ``counts`` holds total, valid, invalid and warning."""
    return {
        "batchId": batch_id,
        "total": counts["total"],
        "valid": counts["valid"],
        "invalid": counts["invalid"],
        "warning": counts["warning"],
        "processingTime": processing_ms,
        "resultsUrl": results_url,
        "metadata": dict(metadata),
    }


def key_created(key: ApiKey) -> dict[str, Any]:
    return {**_key_fields(key), "scopes": list(key.scopes), "allowedIps": list(key.allowed_ips)}


def key_disabled(key: ApiKey, reason: str, at: datetime) -> dict[str, Any]:
    """``reason``: revoke-all, deleted, rotation-overdue (day 97), or rotated (the old secret, after a refresh
    or an automatic rotation)."""
    return {**_key_fields(key), "reason": reason, "disabledAt": iso(at)}


def _key_fields(key: ApiKey) -> dict[str, Any]:
    return {
        "keyId": key.id,
        "name": key.name,
        "secretKeyLast4": key.secret_last4,
        "publishableKey": key.publishable_key,
    }


SAMPLES: dict[str, dict[str, Any]] = {
    "validation.completed": {
        "email": "jane.doe@example.com",
        "isValid": True,
        "score": 92,
        "severity": "valid",
        "checks": {"syntax": True, "domain": True, "disposable": True, "roleBased": True, "smtp": True},
        "processingTime": 412,
        "keyId": 1,
    },
    "batch.completed": {
        "batchId": "batch_sample",
        "total": 100,
        "valid": 80,
        "invalid": 12,
        "warning": 8,
        "processingTime": 8412,
        "resultsUrl": "",  # filled in by sample(): it depends on PUBLIC_BASE_URL
    },
    "quota.warning": {
        "limit": 10000,
        "used": 8000,
        "remaining": 2000,
        "percentage": 80,
        "daysRemaining": 9,
        "projectedUsage": 11400,
    },
    "quota.exceeded": {
        "limit": 10000,
        "used": 10000,
        "graceLimit": 12000,
        "inGracePeriod": True,
        "resetsAt": "2026-12-01T00:00:00.000Z",
    },
    "quota.reset": {
        "previousUsage": 10420,
        "newLimit": 10000,
        "periodStart": "2026-12-01T00:00:00.000Z",
        "periodEnd": "2027-01-01T00:00:00.000Z",
    },
    "key.created": {
        "keyId": 1,
        "name": "Sample key",
        "secretKeyLast4": "AbCd",
        "publishableKey": "pk_live_sample",
        "scopes": ["validate:write"],
        "allowedIps": [],
    },
    "key.disabled": {
        "keyId": 1,
        "name": "Sample key",
        "secretKeyLast4": "AbCd",
        "publishableKey": "pk_live_sample",
        "reason": "revoke-all",
        "disabledAt": "2026-11-21T08:00:00.000Z",
    },
    "address.changed": {
        "listId": "mon_sample",
        "run": 2,
        "email": "jane.doe@example.com",
        "row": 0,
        "previous": {"severity": "valid", "reason": None},
        "current": {"severity": "invalid", "reason": "Remove this address: the mailbox does not exist."},
    },
    "list.rechecked": {
        "listId": "mon_sample",
        "run": 2,
        "jobId": "blk_sample",
        "total": 100,
        "changed": 3,
        "unchanged": 97,
        "valid": 80,
        "warning": 8,
        "invalid": 12,
        "diffUrl": "{base_url}/monitored-lists/mon_sample/runs/2/diff",
    },
}


BRANDED = ("validation.completed", "batch.completed")


def sample(event_type: str, base_url: str, metadata: Mapping[str, str]) -> dict[str, Any]:
    """A realistic payload of ``event_type`` for test sends (the account's base URL and brand filled in)."""
    data = dict(SAMPLES[event_type])
    for link in ("resultsUrl", "diffUrl"):
        if link in data:
            data[link] = data[link].format(base_url=base_url)
    if event_type in BRANDED:
        data["metadata"] = dict(metadata)
    return data
