"""``POST /validate/batch`` (spec 4.2) and its results URL ``GET /batches/<id>/results`` (spec 4.11)."""

from __future__ import annotations

from flask import Blueprint, Response, request

from core.clock import now
from services.probing.jobs import settling
from services.validation import answers, submit
from web.auth import current_auth, require_scope
from web.branding import brand, link_host
from web.idempotency import idempotency_key, marked
from web.limits import charged, rate_limited
from web.openapi import document
from web.parsing import parse_body, parse_query
from web.schemas.base import respond
from web.schemas.errors import FlatError
from web.schemas.results import AcceptedOut, BatchResultOut, ResultsOut, ResultsQuery
from web.schemas.validation_bodies import BatchBody, job_options

bp = Blueprint("batches", __name__)


@bp.post("/validate/batch")
@document(
    "Validate 1 to 100 addresses",
    request=BatchBody,
    responses={200: BatchResultOut, 202: AcceptedOut, 409: FlatError, 422: FlatError},
    coded_400=True,
    description="200 with every result when every address is answered within BATCH_SYNC_WAIT_SECONDS: "
    "a temporary failure (greylisting, 421, timeout) is answered `smtp` unknown with `retryAfter` and never "
    "held; with `options.retryTemporary` those answers are interim (`retrying`, `status` running) until the "
    "background retries settle them on the results URL and `batch.completed` fires. Otherwise, "
    "or with `Prefer: respond-async`, 202 with batchId and resultsUrl. Each address counts one validation "
    "against the monthly quota; the batch counts one request against the rate limit. An `Idempotency-Key` "
    "header sent again within 24 h answers for the same batch (`Idempotent-Replayed: true`, nothing "
    "charged); 422 if the body differs, 409 while the first request is still being received.",
)
@require_scope("validate:write")
@rate_limited
def create() -> Response:
    body, key = parse_body(BatchBody), idempotency_key()
    auth = current_auth()
    options = job_options(auth, body.options)
    answer = answers.validate_batch(auth, body.emails, options, idempotency_key=key, wait=not prefers_async())
    charged(answer.quota)
    return marked(shaped(answer.outcome), answer.replayed)


def shaped(outcome: answers.Batch | answers.Accepted) -> Response:
    """200 with the batch result once every address is answered (some answers interim while
    ``retryTemporary`` retries them: ``retrying``), else 202 with its results URL."""
    if isinstance(outcome, answers.Batch):
        retrying, host = outcome.retrying, link_host()
        return respond(BatchResultOut.of(outcome.page, now(), brand(), retrying=retrying, host=host))
    accepted = AcceptedOut.of(outcome.job, link_host())
    response = respond(accepted, 202)
    response.headers["Location"] = accepted.results_url
    if prefers_async():
        response.headers["Preference-Applied"] = "respond-async"
    return response


@bp.get("/batches/<batch_id>/results")
@document(
    "A batch's status, progress and results, paginated",
    query=ResultsQuery,
    responses={200: ResultsOut},
    description="The results of a bulk list (a `blk_` id) need `bulk:*`, like every bulk route.",
)
@require_scope("validate:read", alternatives=("bulk:*",))
def results(batch_id: str) -> Response:
    query = parse_query(ResultsQuery)
    job = submit.find_readable(current_auth(), batch_id)
    page = submit.results(job, after=query.starting_after, limit=query.limit)
    return respond(ResultsOut.of(page, brand(), retrying=settling.retrying(job)))


def prefers_async() -> bool:
    """RFC 7240 ``Prefer: respond-async`` (among other preferences, any case)."""
    wanted = (part.split(";")[0].strip().lower() for part in request.headers.get("Prefer", "").split(","))
    return "respond-async" in wanted
