"""A finished list's results as CSV or JSON text chunks, read with a server-side cursor (flat memory).

One row out per row in, in upload order, blank rows and duplicates included:

- CSV: the uploaded file's header and cells as they were (a JSON list, or a CSV without a header and with
  one column, has one column ``input``; a header-less CSV with more gets ``column_1``...), padded to the
  widest row, then ``RESULT_COLUMNS``. Every cell is spreadsheet-safe (``services.validation.csv_safe``).
- JSON: an array with one object per row: the spec 2.1 result with ``index``, ``input``, ``email`` and
  ``duplicateOf`` (``services.jobs.list_rows``) and ``metadata`` (the brand fields of spec 2.3, ``cached``
  and ``checkedAt``: ``services.jobs.recent``); values as they are, never escaped.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from sqlalchemy import select

from models.jobs import ItemState, JobItem, JobStatus, ValidationJob
from models.session import transaction
from services.jobs import list_rows
from services.jobs.recent import verdict_metadata
from services.validation.csv_safe import safe_row
from services.validation.errors import JobNotFinished
from verifier.syntax import result_email

DOWNLOAD_BATCH = 2_000
RESULT_COLUMNS = (
    "result_email",
    "result_isValid",
    "result_score",
    "result_severity",
    "result_reason",
    "result_duplicateOf",
)
NO_ADDRESS = "no address on this row: not validated, not charged"
CANCELLED = "not validated (cancelled)"


class Row(NamedTuple):
    position: int
    input: str
    state: str
    duplicate_of: int | None
    cells: list[str] | None
    result: dict[str, Any] | None


def download(job: ValidationJob, fmt: str, metadata: Mapping[str, str]) -> Iterator[str]:
    """The results as CSV or JSON text chunks (see the module docstring)."""
    if not JobStatus(job.status).finished:
        raise JobNotFinished("The list is still being validated; download it once it has finished.")
    rows = _rows(job.id)
    return _as_csv(rows, job.columns or ["input"]) if fmt == "csv" else _as_json(rows, dict(metadata))


def _rows(job_id: int) -> Iterator[Row]:
    stmt = (
        select(JobItem.position, JobItem.input, JobItem.state, JobItem.duplicate_of, JobItem.cells)
        .add_columns(JobItem.result)
        .where(JobItem.job_id == job_id)
        .order_by(JobItem.position)
        .execution_options(yield_per=DOWNLOAD_BATCH)
    )
    with transaction() as session:
        for row in session.execute(stmt):
            yield Row(*row)


def _as_csv(rows: Iterator[Row], columns: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(safe_row([*columns, *RESULT_COLUMNS]))
    width = len(columns)
    for count, row in enumerate(rows, start=1):
        cells = row.cells if row.cells is not None else [row.input]
        writer.writerow(safe_row([*cells, *[""] * (width - len(cells)), *_result_cells(row)]))
        if count % DOWNLOAD_BATCH == 0:
            yield drain(buffer)
    yield drain(buffer)


def _result_cells(row: Row) -> tuple[object, ...]:
    if row.state == ItemState.BLANK.value:
        return ("", "", "", "", NO_ADDRESS, "")
    duplicate_of = "" if row.duplicate_of is None else row.duplicate_of
    email = result_email(row.input)
    if row.result is None:  # cancelled before it was validated
        return (email, "", "", "", CANCELLED, duplicate_of)
    result = row.result
    valid = "true" if result["isValid"] else "false"
    return (email, valid, result["score"], result["severity"], _reason(result), duplicate_of)


def _reason(result: dict[str, Any]) -> str:
    recommendations = result.get("recommendations") or []
    return str(recommendations[0]) if recommendations else ""


def drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def _as_json(rows: Iterator[Row], metadata: dict[str, Any]) -> Iterator[str]:
    parts = ["["]
    for count, row in enumerate(rows):
        item = _json_item(row)
        item["metadata"] = metadata | verdict_metadata(item)
        parts.append(("," if count else "") + json.dumps(item, ensure_ascii=False))
        if len(parts) >= DOWNLOAD_BATCH:
            yield "".join(parts)
            parts = []
    yield "".join(parts) + "]"


def _json_item(row: Row) -> dict[str, Any]:
    if row.state == ItemState.BLANK.value:
        status: dict[str, Any] = {"status": NO_ADDRESS}
    else:
        status = row.result if row.result is not None else {"status": CANCELLED}
    return list_rows.answer("bulk", row.position, row.input, row.duplicate_of, status)
