"""Validation results as the API shows them: single, batch, accepted, a results page (spec 2.1-2.4, 4.11)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from models.jobs import ValidationJob
from services import links
from services.branding import Brand
from services.jobs.recent import verdict_metadata
from services.probing.jobs.completion import processing_ms
from services.validation.submit import ResultsPage
from web.schemas.base import LIVEMODE, Out, Query, Timestamp
from web.schemas.branding import BrandOut
from web.schemas.inputs import INTEGER_MAX
from web.schemas.suppression_evidence import EvidenceOut, absent

RESULT_EMAIL = (
    "the address validated, in lowercase: the submitted text without the blanks around it, the domain in "
    "the form it was written (an `xn--` domain stays one, a Unicode domain stays Unicode); to match a "
    "result to what you sent, use `input` (and `index` in a list)"
)

RETRYING = "answers that are interim (smtp unknown with retryAfter) while the service retries them"


class ResultsQuery(Query):
    starting_after: int | None = Field(
        default=None, ge=0, le=INTEGER_MAX, description="position of the last result seen"
    )
    limit: int = Field(default=100, ge=1, le=1000)


class CheckOut(Out):
    model_config = ConfigDict(extra="allow")

    passed: bool
    check: str | None = None
    message: str
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="the check's findings; for `smtp`: verdict, reason, smtpResponse, and retryAfter "
        "(seconds; null unless the failure is temporary: greylisting, 421, timeout, a backoff, or "
        "`reason` `blocked`: the mail server refuses every egress of the service, asked again after)",
    )


CACHED = (
    "true when answered from a recent verdict of this account (`options.maxAge`) with no new DNS or SMTP "
    "traffic; false when checked for this request"
)
CHECKED_AT = "when the verdict was made: this request's check, or the recent verdict's when `cached`"
REASON = (
    "`suppressed` when the address is on the account's suppression list (of this mode): answered at once "
    "as invalid, no DNS or SMTP; absent otherwise"
)
EVIDENCE = "why the address is suppressed (present only with `reason`)"


class ResultMetadataOut(BrandOut):
    """Who provides the result, and whether it was checked now or answered from a recent verdict; when
    the account's suppression list answered, ``reason`` and the evidence (absent otherwise)."""

    cached: bool = Field(False, description=CACHED)
    checked_at: Timestamp | None = Field(None, description=CHECKED_AT)
    reason: Literal["suppressed"] | None = Field(None, description=REASON, exclude_if=absent)
    suppression: EvidenceOut | None = Field(None, description=EVIDENCE, exclude_if=absent)


class ResultOut(Out):
    """A validation result (spec 2.1); in a batch its ``metadata`` holds the brand fields, ``cached`` and
    ``checkedAt``."""

    model_config = ConfigDict(extra="allow")

    is_valid: bool
    email: str = Field(description=RESULT_EMAIL)
    score: int
    severity: str
    checks: dict[str, CheckOut]
    recommendations: list[str]
    metadata: ResultMetadataOut

    @classmethod
    def branded(cls, result: dict[str, Any], brand: Brand) -> ResultOut:
        return cls.model_validate({**result, "metadata": brand.metadata() | verdict_metadata(result)})


class ListResultOut(ResultOut):
    """A result in a batch or a list: which submitted entry it answers, and whether an earlier one holds
    the same address."""

    index: int = Field(0, description="0-based position of the entry in the submitted list")
    input: str = Field(description="the entry exactly as submitted; `email` is it trimmed and lowercased")
    duplicate_of: int | None = Field(
        None, description="index of the first entry with the same address (answered alike, charged once)"
    )

    @classmethod
    def branded(cls, result: dict[str, Any], brand: Brand) -> ListResultOut:
        return cls.model_validate({**result, "metadata": brand.metadata() | verdict_metadata(result)})


class MetadataOut(ResultMetadataOut):
    """The request's metadata, who provides the result (under white-label, the reseller) and when it was
    checked."""

    processing_time: int
    timestamp: Timestamp
    ip_address: str | None
    country: str | None


class SingleResultOut(ResultOut):
    """A validation result with its request metadata."""

    metadata: MetadataOut
    retrying: bool = Field(
        False, description="answered for now (smtp unknown, retryAfter); retried in the background"
    )
    timed_out: bool = Field(
        False,
        description="drawn when `options.timeout` ran out: the checks not finished are unknown with the "
        "reason timeout; the validation goes on",
    )
    results_url: str | None = Field(
        None, description="while retrying or timed out: where the settled result will be"
    )
    livemode: bool = Field(True, description=LIVEMODE)


class BatchResultOut(Out):
    """A batch every address of which is answered, with its id. With ``retrying`` > 0 (only
    when ``retryTemporary`` was asked for) that many answers are interim and the batch is still running."""

    batch_id: str
    status: str
    total: int
    valid: int
    invalid: int
    warning: int
    results: list[ListResultOut] = Field(description="one per submitted address, in submission order")
    processing_time: int
    timestamp: Timestamp
    checker_degraded: bool = Field(
        False, description="no MX host of any probed domain answered: our checker, not the list; retry later"
    )
    retrying: int = Field(0, description=RETRYING)
    results_url: str | None = Field(None, description="while retrying: where the settled verdicts will be")
    livemode: bool = Field(True, description=LIVEMODE)

    @classmethod
    def of(
        cls, page: ResultsPage, now: datetime, brand: Brand, *, retrying: int = 0, host: str | None = None
    ) -> BatchResultOut:
        job = page.job
        counts: Mapping[str, int] = (
            _severities(page.results)
            if retrying
            else {"valid": job.valid, "warning": job.warning, "invalid": job.invalid}
        )
        return cls(
            batch_id=job.public_id,
            status=job.status,
            total=job.total,
            valid=counts["valid"],
            invalid=counts["invalid"],
            warning=counts["warning"],
            results=[ListResultOut.branded(r, brand) for r in page.results],
            processing_time=processing_ms(job),
            timestamp=now,
            checker_degraded=job.checker_degraded,
            retrying=retrying,
            results_url=links.results_url(job.public_id, host) if retrying else None,
            livemode=job.livemode,
        )


def _severities(results: list[dict[str, Any]]) -> Counter[str]:
    """Counts of an answered batch with interim results: the job's counters hold settled ones only."""
    return Counter(str(result["severity"]) for result in results)


class AcceptedOut(Out):
    """Still running: poll ``resultsUrl`` (or wait for the ``batch.completed`` event)."""

    batch_id: str
    status: str
    total: int
    results_url: str
    livemode: bool = Field(True, description=LIVEMODE)

    @classmethod
    def of(cls, job: ValidationJob, host: str | None) -> AcceptedOut:
        url = links.results_url(job.public_id, host)
        return cls(
            batch_id=job.public_id,
            status=job.status,
            total=job.total,
            results_url=url,
            livemode=job.livemode,
        )


class ProgressOut(Out):
    total: int
    processed: int
    valid: int
    warning: int
    invalid: int

    @classmethod
    def of(cls, job: ValidationJob) -> ProgressOut:
        return cls(
            total=job.total,
            processed=job.processed,
            valid=job.valid,
            warning=job.warning,
            invalid=job.invalid,
        )


class ResultsOut(Out):
    """A job's status, progress and one page of its settled results, in submission order."""

    batch_id: str
    status: str
    progress: ProgressOut
    results: list[ListResultOut] = Field(description="settled results, in submission order")
    has_more: bool
    next_starting_after: int | None
    created_at: Timestamp
    finished_at: Timestamp | None
    processing_time: int
    checker_degraded: bool = Field(
        False, description="no MX host of any probed domain answered: our checker, not the list; retry later"
    )
    retrying: int = Field(0, description=RETRYING + "; progress counts settled answers only")
    livemode: bool = Field(True, description=LIVEMODE)

    @classmethod
    def of(cls, page: ResultsPage, brand: Brand, *, retrying: int = 0) -> ResultsOut:
        job = page.job
        return cls(
            batch_id=job.public_id,
            status=job.status,
            progress=ProgressOut.of(job),
            results=[ListResultOut.branded(r, brand) for r in page.results],
            has_more=page.next_after is not None,
            next_starting_after=page.next_after,
            created_at=job.created_at,
            finished_at=job.finished_at,
            processing_time=processing_ms(job),
            checker_degraded=job.checker_degraded,
            retrying=retrying,
            livemode=job.livemode,
        )
