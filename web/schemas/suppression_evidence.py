"""The evidence a suppressed address is answered with (``services.suppression.answers.Evidence``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from web.schemas.base import Out, Timestamp

KINDS = "`hard` (a hard bounce), `complaint`, or `manual` (added through the API, an import or the dashboard)"


def absent(value: Any) -> bool:
    """Optional answer fields are left out rather than sent as null (``exclude_if``)."""
    return value is None


class EvidenceOut(Out):
    """Why an address is on the suppression list."""

    email: str = Field(description="the address as the evidence named it")
    kind: str = Field(description=KINDS)
    source: str = Field(description="ses, sendgrid, postmark, mailgun, upload, api, import or dashboard")
    diagnostic_code: str | None = Field(description="the receiving server's diagnostic, when given")
    bounced_at: Timestamp = Field(description="when the provider says the bounce or complaint happened")
    suppressed_at: Timestamp = Field(description="when the address was put on the list")
