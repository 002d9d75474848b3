"""The shapes of the answers, as /openapi.json describes them (fields are camelCase, as on the wire).

``total=False``: a newer service may add fields, and some are present only in some answers; the drift test
checks every key named here still exists in the API description.
"""

from __future__ import annotations

from typing import Any, TypedDict


class Verdict(TypedDict, total=False):
    """What every result holds, alone or in a batch or list."""

    email: str
    isValid: bool
    score: int
    severity: str
    checks: dict[str, Any]
    recommendations: list[Any]
    metadata: dict[str, Any]


class ValidationResult(Verdict, total=False):
    """``POST /validate`` (200)."""

    livemode: bool
    resultsUrl: str
    retrying: bool
    timedOut: bool


class Accepted(TypedDict, total=False):
    """A 202: the work goes on; poll ``resultsUrl``."""

    batchId: str
    status: str
    total: int
    resultsUrl: str
    livemode: bool


class ListResult(Verdict, total=False):
    """One result of a batch or list, in submission order."""

    index: int
    input: str
    duplicateOf: int | None


class BatchResult(TypedDict, total=False):
    """``POST /validate/batch`` (200): every address answered."""

    batchId: str
    status: str
    total: int
    valid: int
    warning: int
    invalid: int
    results: list[ListResult]
    processingTime: int
    timestamp: str
    resultsUrl: str
    livemode: bool


class ResultsPage(TypedDict, total=False):
    """``GET /batches/{id}/results``: a job's status and one page of its results."""

    batchId: str
    status: str
    progress: dict[str, int]
    results: list[ListResult]
    hasMore: bool
    nextStartingAfter: int | None
    createdAt: str
    finishedAt: str | None
    livemode: bool


class BulkJob(TypedDict, total=False):
    """A list uploaded with ``POST /bulk/jobs``: status, progress, counts and links."""

    id: str
    status: str
    source: str | None
    total: int
    processed: int
    counts: dict[str, int]
    etaSeconds: int | None
    createdAt: str
    finishedAt: str | None
    resultsUrl: str
    downloadUrl: str
    livemode: bool


class Confirmation(TypedDict, total=False):
    """``POST /validate/confirm`` (200): the verdict a page was given, confirmed once."""

    email: str
    verdict: str
    reason: str
    confirmed: bool
    authoritative: bool
    message: str | None
    confirmedAt: str | None
    livemode: bool


FINISHED = frozenset({"completed", "cancelled", "failed"})
