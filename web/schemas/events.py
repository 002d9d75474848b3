"""The events the service sends to webhook endpoints (spec 6.2, 6.3), for the OpenAPI ``webhooks`` section.

One model per event type's ``data``; the payloads themselves are built in ``services.webhooks.payloads`` and
``services.usage.quota_events``. The OpenAPI test validates real payloads against these schemas, so the two
cannot drift apart silently. Numbers are ``float`` where the spec says "number" without promising an
integer (percentages); counts and milliseconds are integers.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from web.schemas.base import Out
from web.schemas.branding import BrandOut


class ValidationCompletedData(Out):
    """validation.completed: the verdict of one single validation."""

    email: str = Field(description="the address validated, in lowercase, as in the result")
    is_valid: bool
    score: int
    severity: str
    checks: dict[str, bool] = Field(description="check name -> passed")
    processing_time: int = Field(description="milliseconds")
    key_id: int | None = Field(description="the key that asked for the validation")
    metadata: BrandOut


class BatchCompletedData(Out):
    """batch.completed: every address of a batch is answered."""

    batch_id: str
    total: int
    valid: int
    invalid: int
    warning: int
    processing_time: int = Field(description="milliseconds")
    results_url: str
    metadata: BrandOut


class QuotaWarningData(Out):
    """quota.warning: usage reached 80% of the monthly limit."""

    limit: int
    used: int
    remaining: int
    percentage: float
    days_remaining: int
    projected_usage: int


class QuotaExceededData(Out):
    """quota.exceeded: usage reached 100%."""

    limit: int
    used: int
    grace_limit: int
    in_grace_period: bool
    resets_at: str = Field(description="ISO 8601")


class QuotaResetData(Out):
    """quota.reset: a new billing period began."""

    previous_usage: int
    new_limit: int
    period_start: str = Field(description="ISO 8601")
    period_end: str = Field(description="ISO 8601")


class KeyCreatedData(Out):
    """key.created: a key was issued, or got a new secret (never the secret itself)."""

    key_id: int
    name: str
    secret_key_last4: str
    publishable_key: str
    scopes: list[str]
    allowed_ips: list[str]


class KeyDisabledData(Out):
    """key.disabled: a key, or one of its secrets, stopped working."""

    key_id: int
    name: str
    secret_key_last4: str
    publishable_key: str
    reason: str = Field(description="revoke-all, deleted, rotated or rotation-overdue")
    disabled_at: str = Field(description="ISO 8601")


class Verdict(Out):
    severity: str | None = Field(description="valid, warning or invalid")
    reason: str | None = Field(description="the first recommendation, as the download's reason column")


class AddressChangedData(Out):
    """address.changed: a monitored list's re-check gave an address another severity or reason."""

    list_id: str = Field(description="the monitored list (mon_)")
    run: int = Field(description="the run's number (1 for the first re-check)")
    email: str
    row: int = Field(description="the address's first row in the list, from 0")
    previous: Verdict
    current: Verdict


class ListRecheckedData(Out):
    """list.rechecked: a monitored list's re-check finished; sent after its address.changed events."""

    list_id: str
    run: int
    job_id: str = Field(description="the run's bulk list (blk_), downloadable as any list")
    total: int = Field(description="distinct addresses compared")
    changed: int
    unchanged: int
    valid: int
    warning: int
    invalid: int
    diff_url: str = Field(description="the changed rows with both verdicts (CSV)")


EVENT_DATA: dict[str, type[BaseModel]] = {
    "validation.completed": ValidationCompletedData,
    "batch.completed": BatchCompletedData,
    "quota.warning": QuotaWarningData,
    "quota.exceeded": QuotaExceededData,
    "quota.reset": QuotaResetData,
    "key.created": KeyCreatedData,
    "key.disabled": KeyDisabledData,
    "address.changed": AddressChangedData,
    "list.rechecked": ListRecheckedData,
}
