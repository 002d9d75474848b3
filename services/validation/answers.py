"""One answer per validation request: the settled answer, or "accepted, poll here".

``POST /validate``, ``POST /validate/batch`` and the dashboard's Validate page end alike: the addresses are
submitted (or, with quickMode, judged and recorded at once), the request waits up to its wait for every
address to have an answer (``settling.readiness``: some answers may be interim while ``retryTemporary``
retries them), then it is answered with the results, or accepted with where they will be (at once when a
store stops answering during the wait: the job is charged and runs on). Views only shape the answer and
set the headers (the quota this request's charge left among them).

A single validation may instead be given a time budget (``validate_within``): its answer then always comes
within it, the checks not finished by then ``unknown`` with the reason ``timeout`` (``budget``), while the
job goes on to its settled result (results URL, ``validation.completed``), charged once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from models.jobs import JobKind, ValidationJob
from services.auth import Actor
from services.jobs.options import JobOptions
from services.probing.jobs import settling
from services.usage.quota import QuotaStatus
from services.validation import budget, quick, submit
from services.validation.submit import ResultsPage
from settings import get_settings
from verifier.results import JsonValue


@dataclass(frozen=True)
class Single:
    """One address answered; ``retrying`` when the answer is interim (retried in the background),
    ``timed_out`` when it was drawn as the time budget ran out (the validation goes on)."""

    public_id: str
    result: dict[str, JsonValue]
    retrying: bool = False
    timed_out: bool = False


@dataclass(frozen=True)
class Batch:
    """Every address answered, in submission order; ``retrying`` of the answers are interim."""

    page: ResultsPage
    retrying: int = 0


@dataclass(frozen=True)
class Accepted:
    """Not every address answered within the wait: the job goes on, its results URL will have them."""

    job: ValidationJob


Settled = TypeVar("Settled", Single, Batch)


@dataclass(frozen=True)
class Answer(Generic[Settled]):
    outcome: Settled | Accepted
    quota: QuotaStatus | None = None  # what this request's charge left; None when it charged nothing
    replayed: bool = False  # an earlier request with the same Idempotency-Key made the job


def validate_one(actor: Actor, email: str, options: JobOptions) -> Answer[Single]:
    """``email`` validated: with quickMode at once, else by the workers within ``VALIDATE_WAIT_SECONDS``."""
    if options.quick_mode:
        done = quick.validate_quick(actor, email, options)
        return Answer(Single(done.public_id, done.result), done.quota)
    submitted = submit.submit(actor, JobKind.SINGLE, [email], options)
    waited = submit.wait(submitted.job, get_settings().jobs.single_wait)
    return Answer(_single(waited.job, waited.readiness), submitted.quota)


def validate_within(
    actor: Actor, email: str, options: JobOptions, seconds: float
) -> tuple[Single, QuotaStatus | None]:
    """``email`` answered within ``seconds`` (what is left of the request's budget): settled if the workers
    answered in time, else as far as the web process can tell in the budget's last moments
    (``budget.partial_result``) while the job goes on; and the quota its charge left. quickMode has no
    workers to wait for: it answers as ``validate_one`` does."""
    if options.quick_mode:
        done = quick.validate_quick(actor, email, options)
        return Single(done.public_id, done.result), done.quota
    deadline = time.monotonic() + seconds
    submitted = submit.submit(actor, JobKind.SINGLE, [email], options)
    waited = submit.wait(submitted.job, max(deadline - budget.MARGIN_SECONDS - time.monotonic(), 0.0))
    single = _single(waited.job, waited.readiness)
    if isinstance(single, Accepted):
        left = max(deadline - time.monotonic(), 0.0)
        single = Single(submitted.job.public_id, budget.partial_result(email, options, left), timed_out=True)
    return single, submitted.quota


def single_of(actor: Actor, public_id: str) -> Answer[Single]:
    """An accepted single validation's answer as it stands now (no wait, nothing charged)."""
    job = submit.find(actor, public_id, [JobKind.SINGLE])
    return Answer(_single(job, settling.readiness(job)))


def validate_batch(
    actor: Actor, emails: Sequence[str], options: JobOptions, *, idempotency_key: str | None, wait: bool
) -> Answer[Batch]:
    """``emails`` validated by the workers, waited for up to ``BATCH_SYNC_WAIT_SECONDS`` unless not to
    ``wait`` (the client prefers an accepted answer at once)."""
    submitted = submit.submit(actor, JobKind.BATCH, emails, options, idempotency_key=idempotency_key)
    if wait:
        waited = submit.wait(submitted.job, get_settings().jobs.batch_wait)
        batch = _batch(waited.job, waited.readiness)
    else:
        batch = _batch(submitted.job, settling.readiness(submitted.job))
    return Answer(batch, submitted.quota, submitted.replayed)


def _single(job: ValidationJob, readiness: settling.Readiness | None) -> Single | Accepted:
    """Answered, or accepted (also when a store stopped answering during the wait: ``readiness`` None)."""
    if readiness is None or not readiness.answered:
        return Accepted(job)
    return Single(job.public_id, submit.results(job).results[0], retrying=readiness.retrying > 0)


def _batch(job: ValidationJob, readiness: settling.Readiness | None) -> Batch | Accepted:
    if readiness is None or not readiness.answered:
        return Accepted(job)
    return Batch(submit.results(job), readiness.retrying)
