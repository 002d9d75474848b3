"""Bulk list cleaning (scope ``bulk:*``): upload a CSV or JSON list, watch it, download it, cancel it.

The upload is the raw request body (``Content-Type: text/csv`` or ``application/json``), read as a
stream: ``curl --data-binary @list.csv -H 'Content-Type: text/csv' .../bulk/jobs``.
"""

from __future__ import annotations

from flask import Blueprint, Response, request, stream_with_context
from werkzeug.exceptions import UnsupportedMediaType

from models.jobs import JobKind
from services.validation import bulk, bulk_dry_run, submit
from services.validation.bulk_readers import MAX_JSON_ADDRESS
from settings import get_settings
from web.auth import current_auth, require_scope
from web.body_limits import body_limit
from web.branding import brand, link_host
from web.idempotency import idempotency_key, marked
from web.limits import charged, rate_limited
from web.openapi import document
from web.parsing import parse_query
from web.schemas.base import respond
from web.schemas.bulk import BulkJobOut, DownloadQuery, DryRunOut, UploadQuery
from web.schemas.errors import FlatError
from web.schemas.results import RESULT_EMAIL
from web.schemas.validation_bodies import job_options

bp = Blueprint("bulk", __name__, url_prefix="/bulk/jobs")
MEDIA_TYPES = {"text/csv": "csv", "application/json": "json"}
# The plain CSV: an optional ``email`` header, a first address (a visible ASCII character first, an "@" in
# it, so it cannot read as the header), then lines with no comma, quote, NUL or lone CR. The reader takes
# more (quoted cells, more columns); no pattern can say which CSV holds an address, so the document states
# this form (docs/decisions.md). The first address starts with neither "[" nor "{": a body starting so may
# be JSON, which is refused (``services.validation.upload_guards.not_json``).
CSV_PATTERN = (
    r"^(?:[Ee][Mm][Aa][Ii][Ll]\r?\n)?"  # the header
    r'[ \t]*[!#-+\--Z\\\]-z|-~][^\x00\n\r",]{0,126}@[^\x00\n\r",]{0,126}'  # the first address
    r'(?:\r?\n[^\x00\n\r",]{0,254})*$'  # more lines
)
# What ``services.validation.bulk_readers`` accepts (limits in ``services.validation.upload_guards``).
UPLOAD_BODIES = {
    "text/csv": {
        "type": "string",
        "pattern": CSV_PATTERN,
        "description": "One address per line; the column headed `email` if the first row has one, else the "
        "first column. Every row comes back in the CSV download with its own cells; a row without an "
        "address is kept there, not validated or charged. The pattern is the plain form (an optional `email` "
        "header, then one address per line); the reader takes any CSV whose lines are at most 8 KiB and 64 "
        "columns. A body whose first line starts as JSON does (`[`, or `{` before a key or its closing "
        "brace) is refused with 400 (`field` `body`): send a JSON list as application/json.",
    },
    "application/json": {
        "type": "array",
        "minItems": 1,
        "items": {
            "anyOf": [
                {"type": "string", "maxLength": MAX_JSON_ADDRESS},
                {
                    "type": "object",
                    "required": ["email"],
                    "properties": {"email": {"type": "string", "maxLength": MAX_JSON_ADDRESS}},
                    "additionalProperties": False,
                },
            ]
        },
        "description": "Addresses, or objects with an `email` string and no other field.",
    },
}
DOWNLOAD_TYPES = {"csv": "text/csv; charset=utf-8", "json": "application/json"}
DOWNLOADS = {
    "text/csv": {
        "type": "string",
        "description": "A header row (input, email, isValid, score, severity, reason), then one row per "
        "line of the list; cells a spreadsheet would run as a formula are escaped.",
    },
    "application/json": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["input", "email", "metadata"],
            "properties": {
                "input": {"type": "string"},
                "email": {"type": "string", "description": RESULT_EMAIL},
                "metadata": {"type": "object"},
            },
        },
        "description": "One object per line of the list: `input` and the single-validation result, or "
        "`status: not validated (cancelled)`.",
    },
}


@bp.post("")
@document(
    "Upload a list (CSV or JSON body) to validate",
    query=UploadQuery,
    responses={202: BulkJobOut, 200: DryRunOut, 409: FlatError, 422: FlatError},
    raw_body=UPLOAD_BODIES,
    description="Each distinct address counts one validation against the monthly quota (all or nothing; "
    "a duplicate row is answered with its first row's verdict, free); the upload counts one request "
    "against the rate limit. Bodies up to BULK_MAX_BODY_BYTES. An `Idempotency-Key` sent again within "
    "24 h with the same list answers for the same job (`Idempotent-Replayed: true`); 422 if the list "
    "differs, 409 while the first upload is still being received. With `dryRun=true`, "
    "200 with the list's rows, duplicates, syntax failures, distinct domains and cost; nothing is stored "
    "or charged.",
)
@body_limit(lambda: get_settings().jobs.bulk_max_body_bytes)
@require_scope("bulk:*")
@rate_limited
def upload() -> Response:
    query = parse_query(UploadQuery)
    fmt = MEDIA_TYPES.get(request.mimetype)
    if fmt is None:
        raise UnsupportedMediaType("Send the list as text/csv or application/json.")
    auth, key = current_auth(), idempotency_key()
    options = job_options(auth, query)
    if query.dry_run:
        summary = bulk_dry_run.dry_run(auth, request.stream, fmt, options)
        return respond(DryRunOut.of(summary, auth.livemode))
    submitted = bulk.upload(auth, request.stream, fmt, options, idempotency_key=key)
    charged(submitted.quota)
    return marked(respond(BulkJobOut.of(bulk.progress(submitted.job), link_host()), 202), submitted.replayed)


@bp.get("/<job_id>")
@document("A list's status, progress, counts and estimated time left", responses={200: BulkJobOut})
@require_scope("bulk:*")
def status(job_id: str) -> Response:
    job = submit.find(current_auth(), job_id, [JobKind.BULK])
    return respond(BulkJobOut.of(bulk.progress(job), link_host()))


@bp.get("/<job_id>/download")
@document(
    "Download a finished list's results (CSV or JSON, streamed)",
    query=DownloadQuery,
    responses={409: FlatError},
    raw_responses={200: DOWNLOADS},
    description="409 while the list is still being validated. One row per uploaded row, in order. CSV: "
    "the file's own header and cells (padded to the widest row), then result_email (the address in "
    "lowercase; the row's own cells keep it as written), result_isValid, "
    "result_score, result_severity, result_reason, result_duplicateOf; cells starting with =, +, -, @, "
    "tab or CR get a leading ' (CSV injection). JSON: one object per row with index, input, email, "
    "duplicateOf and the result, values unescaped.",
)
@require_scope("bulk:*")
def download(job_id: str) -> Response:
    fmt = parse_query(DownloadQuery).format
    chunks = bulk.download(submit.find(current_auth(), job_id, [JobKind.BULK]), fmt, brand().metadata())
    response = Response(stream_with_context(chunks), mimetype=DOWNLOAD_TYPES[fmt])
    response.headers["Content-Disposition"] = f'attachment; filename="{job_id}.{fmt}"'
    return response


@bp.post("/<job_id>/cancel")
@document("Stop a list: groups not started are dropped, results so far are kept", responses={200: BulkJobOut})
@require_scope("bulk:*")
def cancel(job_id: str) -> Response:
    job = submit.cancel(current_auth(), job_id, [JobKind.BULK])
    return respond(BulkJobOut.of(bulk.progress(job), link_host()))
