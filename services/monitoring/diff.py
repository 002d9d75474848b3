"""A run's diff download: only the rows whose address changed, with both verdicts, in the user's columns.

Like the list's own CSV download (``services.validation.bulk_download``): the uploaded header and cells as
they were, padded to the widest row, then the verdict columns, every cell spreadsheet-safe. A duplicate row
of a changed address is a changed row too (it shares its first row's verdict).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from sqlalchemy import Row, select
from sqlalchemy.orm import aliased

from models.jobs import JobItem, ValidationJob
from models.monitoring import MonitorChange, RunStatus
from models.session import transaction
from services.auth import Actor
from services.errors import NotFound
from services.monitoring import lists
from services.monitoring.errors import RunNotCompared
from services.validation.bulk_download import drain
from services.validation.csv_safe import safe_row

DIFF_COLUMNS = (
    "result_email",
    "previous_severity",
    "previous_reason",
    "current_severity",
    "current_reason",
)
BATCH = 2_000


def download(actor: Actor, public_id: str, number: int) -> Iterator[str]:
    """The changed rows of run ``number`` as CSV text chunks (see the module docstring)."""
    monitored = lists.one(actor, public_id)
    run = next((each.run for each in monitored.runs if each.run.number == number), None)
    if run is None:
        raise NotFound(f"No run {number} of the monitored list {public_id!r}.")
    if run.status != RunStatus.COMPLETED.value:
        raise RunNotCompared(f"Run {number} is {run.status}; its changes are known once it has completed.")
    with transaction() as session:
        columns = session.scalars(select(ValidationJob.columns).where(ValidationJob.id == run.job_id)).one()
    return _as_csv(run.id, run.job_id or 0, columns or ["input"])


def _rows(run_id: int, job_id: int) -> Iterator[Row[list[str] | None, str, MonitorChange]]:
    first = aliased(JobItem)
    stmt = (
        select(JobItem.cells, JobItem.input, MonitorChange)
        .join(first, (first.job_id == JobItem.job_id) & (first.key == JobItem.key))
        .join(MonitorChange, (MonitorChange.run_id == run_id) & (MonitorChange.position == first.position))
        .where(JobItem.job_id == job_id, first.job_id == job_id, first.duplicate_of.is_(None))
        .order_by(JobItem.position)
        .execution_options(yield_per=BATCH)
    )
    with transaction() as session:
        yield from session.execute(stmt)


def _as_csv(run_id: int, job_id: int, columns: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(safe_row([*columns, *DIFF_COLUMNS]))
    width = len(columns)
    for count, (cells, raw, change) in enumerate(_rows(run_id, job_id), start=1):
        own = cells if cells is not None else [raw]
        verdicts = (
            change.email,
            change.previous_severity,
            change.previous_reason,
            change.severity,
            change.reason,
        )
        writer.writerow(safe_row([*own, *[""] * (width - len(own)), *verdicts]))
        if count % BATCH == 0:
            yield drain(buffer)
    yield drain(buffer)
