"""Bulk list bodies: upload options (query string), job status with progress, download format."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from services import links
from services.jobs.bulk import Progress
from services.jobs.completion import processing_ms
from web.schemas.base import Out, Query
from web.schemas.validation import RETRY_TEMPORARY


class UploadQuery(Query):
    quick_mode: bool = Field(default=False, description="skip the SMTP and catch-all checks")
    skip_catch_all: bool = Field(default=False, description="skip catch-all detection")
    retry_temporary: bool = Field(default=True, description=RETRY_TEMPORARY)


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
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    results_url: str
    download_url: str

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
        )
