"""The API operations this client calls, in one table: method, path, the body fields and query parameters
it may send, and whether the operation takes an ``Idempotency-Key``. Both clients build every request
from here, and tests/clients/test_drift.py checks the table against the service's ``/openapi.json``."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # with ``{name}`` placeholders, as /openapi.json writes them
    body: frozenset[str] = frozenset()  # top-level JSON fields (for a JSON body)
    options: frozenset[str] = frozenset()  # fields of the body's ``options`` object
    query: frozenset[str] = frozenset()
    idempotent: bool = False  # takes an Idempotency-Key (set once per call, kept across its retries)


def _fields(*names: str) -> frozenset[str]:
    return frozenset(names)


VALIDATE_OPTIONS = _fields("quickMode", "skipCatchAll", "retryTemporary", "maxAge")
OPERATIONS: dict[str, Operation] = {
    "validate": Operation("POST", "/validate", _fields("email", "options"), VALIDATE_OPTIONS | {"timeout"}),
    "validate_batch": Operation(
        "POST", "/validate/batch", _fields("emails", "options"), VALIDATE_OPTIONS, idempotent=True
    ),
    "batch_results": Operation("GET", "/batches/{batch_id}/results", query=_fields("startingAfter", "limit")),
    "upload": Operation(
        "POST",
        "/bulk/jobs",
        query=_fields("quickMode", "skipCatchAll", "retryTemporary", "maxAge", "dryRun"),
        idempotent=True,
    ),
    "upload_status": Operation("GET", "/bulk/jobs/{job_id}"),
    "download": Operation("GET", "/bulk/jobs/{job_id}/download", query=_fields("format")),
    "cancel_upload": Operation("POST", "/bulk/jobs/{job_id}/cancel"),
    "confirm_token": Operation("POST", "/validate/confirm", _fields("token", "email")),
}


@dataclass(frozen=True)
class Call:
    """One request to make, the same for every attempt (its idempotency key included)."""

    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


def call(
    name: str,
    *,
    json: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
    headers: Mapping[str, str] | None = None,
    **path: str,
) -> Call:
    """The request for operation ``name``; fields left as None are not sent. A key is made for an
    operation that takes one unless the caller gave theirs (to make a later call answer the same)."""
    op = OPERATIONS[name]
    sent_params = {name: _query_value(value) for name, value in (params or {}).items() if value is not None}
    extra = dict(headers or {})
    if op.idempotent:
        extra["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    return Call(op.method, op.path.format(**path), dict(json) if json else None, sent_params, extra)


def options(**given: Any) -> dict[str, Any]:
    """The ``options`` object with only what the caller set (the service's defaults apply to the rest)."""
    return {name: value for name, value in given.items() if value is not None}


def _query_value(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value
