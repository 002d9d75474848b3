"""Bulk list bodies: upload options (query string), job status with progress, download format."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from services import links
from services.probing.jobs.completion import processing_ms
from services.validation.bulk import Progress
from services.validation.bulk_dry_run import ListSummary
from web.schemas.base import LIVEMODE, Out, Query, Timestamp
from web.schemas.validation_bodies import MAX_AGE, RETRY_TEMPORARY, MaxAge


class UploadQuery(Query):
    quick_mode: bool = Field(default=False, description="skip the SMTP and catch-all checks")
    skip_catch_all: bool = Field(default=False, description="skip catch-all detection")
    retry_temporary: bool = Field(default=True, description=RETRY_TEMPORARY)
    max_age: MaxAge | None = Field(default=None, description=MAX_AGE)
    dry_run: bool = Field(
        default=False,
        description="answer 200 with what the list holds and would cost; nothing is stored or charged",
    )


class DownloadQuery(Query):
    format: Literal["csv", "json"] = "csv"


class BulkCountsOut(Out):
    valid: int
    warning: int
    invalid: int


class BulkJobOut(Out):
    """A bulk list job: status, progress, counts by severity, estimated time left and its links."""

    id: str
    status: str
    source: str | None
    total: int
    processed: int
    counts: BulkCountsOut
    eta_seconds: int | None = Field(description="estimated seconds left; null until the first results")
    processing_time: int
    created_at: Timestamp
    started_at: Timestamp | None
    finished_at: Timestamp | None
    results_url: str
    download_url: str
    livemode: bool = Field(True, description=LIVEMODE)

    @classmethod
    def of(cls, progress: Progress, host: str | None) -> BulkJobOut:
        job = progress.job
        return cls(
            id=job.public_id,
            status=job.status,
            source=job.source,
            total=job.total,
            processed=job.processed,
            counts=BulkCountsOut(valid=job.valid, warning=job.warning, invalid=job.invalid),
            eta_seconds=progress.eta_seconds,
            processing_time=processing_ms(job),
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
            results_url=links.results_url(job.public_id, host),
            download_url=links.download_url(job.public_id, host),
            livemode=job.livemode,
        )


class QuotaNowOut(Out):
    limit: int
    used: int
    remaining: int = Field(description="validations left within the quota itself")
    hard_limit: int = Field(description="the last validation that runs (120% of the quota)")


class CostOut(Out):
    """What the upload would be charged: one validation per distinct address (duplicates are free)."""

    validations: int
    within_quota: int = Field(description="validations within the quota (0 when the list would be refused)")
    overage: int = Field(description="validations past the quota, run in grace and billed at period end")
    would_be_refused: bool = Field(description="the upload would pass the hard limit and be refused (429)")
    quota: QuotaNowOut


class DryRunOut(Out):
    """``dryRun=true``: what the list holds and would cost; nothing was stored or charged."""

    rows: int = Field(description="every row of the list, blank ones included")
    blank_rows: int = Field(description="CSV rows without an address: kept in the download, not charged")
    addresses: int = Field(description="rows with an address")
    duplicates: int = Field(description="rows whose address an earlier row already has")
    distinct_addresses: int
    syntax_failures: int = Field(description="rows whose address is not valid syntax")
    distinct_domains: int = Field(description="domains among the addresses of valid syntax")
    cost: CostOut
    livemode: bool = Field(
        description=LIVEMODE + "; `cost.quota` is then the sandbox's usage (GET /api/usage)"
    )

    @classmethod
    def of(cls, summary: ListSummary, livemode: bool) -> DryRunOut:
        cost, quota = summary.cost, summary.cost.quota
        return cls(
            rows=summary.rows,
            blank_rows=summary.blank_rows,
            addresses=summary.addresses,
            duplicates=summary.duplicates,
            distinct_addresses=cost.validations,
            syntax_failures=summary.syntax_failures,
            distinct_domains=summary.distinct_domains,
            cost=CostOut(
                validations=cost.validations,
                within_quota=cost.within_quota,
                overage=cost.overage,
                would_be_refused=cost.refused,
                quota=QuotaNowOut(
                    limit=quota.limit, used=quota.used, remaining=quota.remaining, hard_limit=quota.hard_limit
                ),
            ),
            livemode=livemode,
        )
