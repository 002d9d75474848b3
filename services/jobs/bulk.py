"""Bulk list cleaning: upload (streamed into Postgres with COPY), progress, download, cancel.

Upload in three steps, so that nobody pays for a list that was never stored and nothing runs unpaid:

1. the list is streamed from the request into ``job_items`` with ``COPY`` in chunks of
   ``COPY_CHUNK`` rows (memory stays flat whatever the size) under a job in state ``uploading``;
2. the quota is charged N validations under the job's id (all or nothing, as for a batch); refused,
   the job and its rows are deleted and the client gets the quota error;
3. the job becomes ``queued`` and a worker plans it (``tasks.jobs.plan_job``).

A process that dies between 1 and 3 leaves an ``uploading`` job nobody sees (``find`` hides them); the
sweeper expires it. A client ``Idempotency-Key`` is honoured as for batches (``services.jobs.idempotency``);
the list's digest is computed as it streams in.
Same engine path and events as batches: groups, leases, sweeper, ``batch.completed``.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.auth import AuthContext
from services.broker import PLAN_JOB_TASK, send_task
from services.jobs import allowance, bulk_readers, idempotency
from services.jobs.errors import BadUpload, JobNotFinished
from services.jobs.options import JobOptions, storable
from services.jobs.submit import Charger, Submitted, admit, open_job, replay_of_concurrent
from settings import get_settings

COPY_CHUNK = 10_000
DOWNLOAD_BATCH = 2_000
_COPY = "COPY job_items (job_id, position, input, state) FROM STDIN WITH (FORMAT csv)"


@dataclass(frozen=True)
class Progress:
    job: ValidationJob
    eta_seconds: int | None


def upload(
    auth: AuthContext,
    stream: IO[bytes],
    fmt: str,
    options: JobOptions,
    charge: Charger,
    *,
    idempotency_key: str | None = None,
) -> Submitted:
    """Store, charge and queue the list read from ``stream`` (see the module docstring); with an
    ``idempotency_key`` seen in the last 24 h, the earlier job, once this body proves to be the same."""
    body = idempotency.DigestingStream(
        stream, idempotency.digest_of(JobKind.BULK.value, fmt, *options.client_switches())
    )
    reader = io.BufferedReader(body)
    if idempotency_key and (earlier := idempotency.earlier_job(auth.account.id, idempotency_key)):
        idempotency.drain(reader)
        return Submitted(idempotency.same_request(earlier, body.hexdigest()), replayed=True)
    limit = allowance.upload_limit(auth.account, get_settings().jobs.bulk_max_addresses)
    try:
        job_id, public_id, count = _store(
            auth, reader, body, fmt, options, limit=limit, idempotency_key=idempotency_key
        )
    except IntegrityError as error:
        idempotency.drain(reader)
        return replay_of_concurrent(error, auth, idempotency_key, body.hexdigest())
    job = admit(job_id, public_id, count, charge)
    send_task(PLAN_JOB_TASK, job_id)  # after admit's commit; a lost message is re-sent by the sweeper
    return Submitted(job)


def _store(
    auth: AuthContext,
    reader: IO[bytes],
    body: idempotency.DigestingStream,
    fmt: str,
    options: JobOptions,
    *,
    limit: allowance.UploadLimit,
    idempotency_key: str | None,
) -> tuple[int, str, int]:
    with transaction() as session:
        job = open_job(session, auth, JobKind.BULK, options, idempotency_key=idempotency_key, digest=None)
        job.source = fmt
        inputs = bulk_readers.addresses(reader, fmt)
        count = _copy(session, job.id, inputs, limit)
        if count == 0:
            raise BadUpload("body", "The list holds no addresses.")
        # The sweeper's clock for abandoned uploads starts when the list is in, not when it started coming.
        job.total, job.request_digest, job.created_at = count, body.hexdigest(), clock.now()
        return job.id, job.public_id, count


def _copy(session: Session, job_id: int, inputs: Iterable[str], limit: allowance.UploadLimit) -> int:
    """COPY the inputs in chunks; the number stored. Raises past the limit (the transaction rolls back)."""
    cursor = session.connection().connection.cursor()
    count = 0
    numbered = enumerate(inputs)
    while chunk := list(itertools.islice(numbered, COPY_CHUNK)):
        count += len(chunk)
        if count > limit.maximum:
            limit.refuse(count)
        buffer = io.StringIO()
        writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerows((job_id, position, storable(raw), ItemState.NEW.value) for position, raw in chunk)
        buffer.seek(0)
        cursor.copy_expert(_COPY, buffer)
    return count


def progress(job: ValidationJob) -> Progress:
    """The job with an estimate of the time left, from its rate so far (None before any result)."""
    if job.started_at is None or job.processed == 0 or JobStatus(job.status).finished:
        return Progress(job, 0 if JobStatus(job.status).finished else None)
    elapsed = (clock.now() - job.started_at).total_seconds()
    rate = job.processed / max(elapsed, 0.001)
    return Progress(job, round((job.total - job.processed) / rate))


def download(job: ValidationJob, fmt: str, metadata: Mapping[str, str]) -> Iterator[str]:
    """The results as CSV or JSON text chunks, read with a server-side cursor (flat memory).

    Each JSON result carries ``metadata`` (the brand fields of spec 2.3, as single results do)."""
    if not JobStatus(job.status).finished:
        raise JobNotFinished("The list is still being validated; download it once it has finished.")
    rows = _rows(job.id)
    return _as_csv(rows) if fmt == "csv" else _as_json(rows, dict(metadata))


CSV_COLUMNS = ("input", "email", "isValid", "score", "severity", "reason")


def _rows(job_id: int) -> Iterator[tuple[str, dict[str, Any] | None]]:
    stmt = (
        select(JobItem.input, JobItem.result)
        .where(JobItem.job_id == job_id)
        .order_by(JobItem.position)
        .execution_options(yield_per=DOWNLOAD_BATCH)
    )
    with transaction() as session:
        for row in session.execute(stmt):
            yield row.input, row.result


def _as_csv(rows: Iterator[tuple[str, dict[str, Any] | None]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for index, (raw, result) in enumerate(rows, start=1):
        writer.writerow(_csv_row(raw, result))
        if index % DOWNLOAD_BATCH == 0:
            yield _drain(buffer)
    yield _drain(buffer)


def _csv_row(raw: str, result: dict[str, Any] | None) -> tuple[object, ...]:
    if result is None:  # cancelled before it was validated
        return (raw, "", "", "", "", "not validated (cancelled)")
    return (raw, result["email"], result["isValid"], result["score"], result["severity"], _reason(result))


def _reason(result: dict[str, Any]) -> str:
    recommendations = result.get("recommendations") or []
    return str(recommendations[0]) if recommendations else ""


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def _as_json(rows: Iterator[tuple[str, dict[str, Any] | None]], metadata: dict[str, str]) -> Iterator[str]:
    """A JSON array, one object per submitted line: ``input`` plus the spec 2.1 result."""
    parts = ["["]
    for index, (raw, result) in enumerate(rows):
        item = result if result is not None else {"email": raw, "status": "not validated (cancelled)"}
        item = {**item, "metadata": metadata}
        parts.append(("," if index else "") + json.dumps({"input": raw, **item}, ensure_ascii=False))
        if len(parts) >= DOWNLOAD_BATCH:
            yield "".join(parts)
            parts = []
    yield "".join(parts) + "]"
