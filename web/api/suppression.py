"""The suppression list: page through it, read an address's evidence and history, add, remove,
import and export as CSV. Each mode keeps its own list: a test key sees and changes test mode's only."""

from __future__ import annotations

from flask import Blueprint, Response, request, stream_with_context
from werkzeug.exceptions import UnsupportedMediaType

from services.suppression import entries, exports
from services.suppression.errors import BadNotification
from web.auth import current_auth, require_scope
from web.body_limits import body_limit
from web.openapi import document
from web.parsing import parse_body, parse_query
from web.schemas.base import respond
from web.schemas.suppression import (
    AddSuppressionBody,
    ImportOut,
    RecordedOut,
    RemovedOut,
    SuppressedOut,
    SuppressionEntryOut,
    SuppressionPageOut,
    SuppressionQuery,
)

bp = Blueprint("suppression", __name__, url_prefix="/suppression")
IMPORT_MAX_BYTES = 10 * 1024 * 1024
# The plain form: a header row of known columns, ``email`` first, then rows with no NUL nor quote (the reader
# takes any CSV; a quoted cell left open at the end is a 400 naming ``body``).
CSV_PATTERN = (
    r'^[Ee][Mm][Aa][Ii][Ll](?:,(?:kind|diagnosticCode|bouncedAt))*\r?\n(?:[^\x00\r\n"]*\r?\n)*[^\x00\r\n"]*$'
)
CSV_BODY = {
    "text/csv": {
        "type": "string",
        "pattern": CSV_PATTERN,
        "description": "A header row naming `email` and optionally `kind` (hard, soft, complaint, manual; "
        "manual when absent), `diagnosticCode` and `bouncedAt` (ISO 8601); at most 10,000 rows.",
    }
}
CSV_EXPORT = {
    "text/csv": {
        "type": "string",
        "description": "email, address, kind, source, diagnosticCode, bouncedAt, suppressedAt; cells "
        "starting with =, +, -, @, tab or CR get a leading ' (CSV injection).",
    }
}
SUPPRESSED = (
    "A suppressed address is answered by every validation at once as invalid, with `metadata.reason` "
    "`suppressed` and the evidence, without DNS or SMTP, and counts one validation like any other."
)


@bp.get("")
@document(
    "Page through the suppression list, newest first",
    query=SuppressionQuery,
    responses={200: SuppressionPageOut},
    description=SUPPRESSED,
)
@require_scope("suppression:read")
def list_all() -> Response:
    query, auth = parse_query(SuppressionQuery), current_auth()
    page = entries.list_page(auth, limit=query.limit, starting_after=query.starting_after, email=query.email)
    return respond(SuppressionPageOut.of(page, auth.livemode))


@bp.post("")
@document(
    "Suppress an address by hand (201; 200 when it was already suppressed, its evidence unchanged)",
    request=AddSuppressionBody,
    responses={201: SuppressedOut, 200: SuppressedOut},
    description=SUPPRESSED,
)
@require_scope("suppression:write")
def add() -> Response:
    body = parse_body(AddSuppressionBody)
    row, added = entries.add(current_auth(), body.email, body.diagnostic_code, source="api")
    return respond(SuppressedOut.of(row), 201 if added else 200)


@bp.get("/addresses/<email>")
@document("An address's entry: its evidence, soft bounces and history", responses={200: SuppressionEntryOut})
@require_scope("suppression:read")
def read(email: str) -> Response:
    auth = current_auth()
    return respond(SuppressionEntryOut.of(entries.read(auth, email), auth.livemode))


@bp.delete("/addresses/<email>")
@document("Take an address off the list (its history stays)", responses={200: RemovedOut})
@require_scope("suppression:write")
def remove(email: str) -> Response:
    auth = current_auth()
    row = entries.remove(auth, email)
    return respond(RemovedOut(address=row.address, livemode=auth.livemode))


@bp.post("/import")
@document(
    "Import addresses from a CSV file",
    responses={200: ImportOut},
    raw_body=CSV_BODY,
    description="Rows that cannot be read are listed (at most 100) and the others still go in; an "
    "address already suppressed keeps its first evidence. Bodies up to 10 MiB.",
    errors=(BadNotification,),
)
@body_limit(lambda: IMPORT_MAX_BYTES)
@require_scope("suppression:write")
def import_csv() -> Response:
    if request.mimetype != "text/csv":
        raise UnsupportedMediaType("Send the list as text/csv.")
    auth = current_auth()
    counts, read = exports.import_csv(auth, request.get_data().decode("utf-8-sig", errors="replace"))
    return respond(ImportOut(**RecordedOut.counts(counts, read), livemode=auth.livemode))


@bp.get("/export")
@document("Export the list as CSV (streamed)", responses={}, raw_responses={200: CSV_EXPORT})
@require_scope("suppression:read")
def export() -> Response:
    response = Response(stream_with_context(exports.export_csv(current_auth())), mimetype="text/csv")
    response.headers["Content-Disposition"] = 'attachment; filename="suppression.csv"'
    return response
