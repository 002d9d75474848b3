"""Bulk list cleaning: upload (streamed into Postgres with COPY), progress, download, cancel.

Upload in three steps, so that nobody pays for a list that was never stored and nothing runs unpaid:

1. the list is streamed from the request into ``job_items`` with ``COPY`` in chunks of
   ``COPY_CHUNK`` rows (memory stays flat whatever the size) under a job in state ``uploading``: every
   row, with its duplicate key and, for a CSV, its own cells (blank rows too, for the download);
2. the quota is charged one validation per distinct address (``services.jobs.list_rows``) under the
   job's id (all or nothing, as for a batch); refused, the job and its rows are deleted and the client
   gets the quota error;
3. the job becomes ``queued`` and a worker plans it (``tasks.probing.plan_job``).

A process that dies between 1 and 3 leaves an ``uploading`` job nobody sees (``find`` hides them); the
sweeper expires it. A client ``Idempotency-Key`` is honoured as for batches
(``services.validation.idempotency``); the list's digest is computed as it streams in.
Same engine path and events as batches: groups, leases, sweeper, ``batch.completed``.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.jobs import ItemState, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.auth import Actor
from services.broker import PLAN_JOB_TASK, send_task
from services.jobs import store
from services.jobs.options import JobOptions, storable
from services.validation import allowance, bulk_download, bulk_readers, idempotency, list_names
from services.validation.errors import BadUpload
from services.validation.submit import Submitted, admit, open_job, replay_of_concurrent
from settings import get_settings
from verifier.dedupe import address_key

COPY_CHUNK = 10_000


@dataclass(frozen=True)
class Progress:
    job: ValidationJob
    eta_seconds: int | None


def upload(
    actor: Actor,
    stream: IO[bytes],
    fmt: str,
    options: JobOptions,
    *,
    idempotency_key: str | None = None,
    file_name: str | None = None,
) -> Submitted:
    """Store, charge and queue the list read from ``stream`` (see the module docstring); with an
    ``idempotency_key`` seen in the last 24 h, the earlier job, once this body proves to be the same.
    ``file_name``: the uploaded file's name, kept to show and download the list by."""
    body = idempotency.DigestingStream(
        stream, idempotency.digest_of(JobKind.BULK.value, fmt, *options.client_switches())
    )
    reader = io.BufferedReader(body)
    if idempotency_key and (
        earlier := idempotency.earlier_job(actor.account.id, idempotency_key, actor.livemode)
    ):
        idempotency.drain(reader)
        return Submitted(idempotency.same_request(earlier, body.hexdigest()), replayed=True)
    limit = allowance.upload_limit(
        actor.account, get_settings().jobs.bulk_max_addresses, charged=actor.livemode
    )
    try:
        job_id, public_id, count = _store(
            actor, reader, body, fmt, options, limit=limit, idempotency_key=idempotency_key, name=file_name
        )
    except IntegrityError as error:
        idempotency.drain(reader)
        return replay_of_concurrent(error, actor, idempotency_key, body.hexdigest())
    job, quota = admit(actor, job_id, public_id, count)
    send_task(PLAN_JOB_TASK, job_id)  # after admit's commit; a lost message is re-sent by the sweeper
    return Submitted(job, quota=quota)


def _store(
    actor: Actor,
    reader: IO[bytes],
    body: idempotency.DigestingStream,
    fmt: str,
    options: JobOptions,
    *,
    limit: allowance.UploadLimit,
    idempotency_key: str | None,
    name: str | None,
) -> tuple[int, str, int]:
    """The list stored under a new ``uploading`` job; its ids and the number of distinct addresses."""
    with transaction() as session:
        job = open_job(
            session,
            actor,
            JobKind.BULK,
            options,
            idempotency_key=idempotency_key,
            digest=None,
            source=fmt,
            file_name=list_names.stored(name),
        )
        uploaded = bulk_readers.UploadedList(reader, fmt)
        addresses = copy_rows(session, job.id, uploaded, limit)
        distinct = store.mark_duplicates(session, job.id)
        if (room := limit.refused_past) is not None and distinct > room:
            limit.refuse(distinct)
        store.list_stored(job, total=addresses, digest=body.hexdigest(), columns=uploaded.columns)
        return job.id, job.public_id, distinct


def copy_rows(
    session: Session, job_id: int, uploaded: bulk_readers.UploadedList, limit: allowance.UploadLimit
) -> int:
    """COPY every row in chunks; the number of rows with an address. Raises past the limits (the
    transaction rolls back): more rows than ``BULK_MAX_ADDRESSES``, or more distinct addresses than the
    quota has room for, counted in SQL each time the list doubles past that room (linear in all)."""
    rows = addresses = 0
    room = limit.refused_past
    next_count = room + 1 if room is not None else None
    numbered = enumerate(uploaded)
    while chunk := list(itertools.islice(numbered, COPY_CHUNK)):
        rows += len(chunk)
        if rows > limit.addresses:
            limit.refuse_rows(rows)
        addresses += sum(1 for _, entry in chunk if not entry.blank)
        store.copy_items(session, job_id, (_stored(position, entry) for position, entry in chunk))
        if room is not None and next_count is not None and addresses >= next_count:
            if (distinct := store.distinct_addresses(session, job_id)) > room:
                limit.refuse(distinct)
            next_count = addresses * 2
    if addresses == 0:
        raise BadUpload("body", "The list holds no addresses.")
    return addresses


def _stored(position: int, entry: bulk_readers.Entry) -> store.UploadedRow:
    raw = storable(entry.text)
    cells = None if entry.cells is None else json.dumps([storable(cell) for cell in entry.cells])
    if entry.blank:
        return store.UploadedRow(position, raw, ItemState.BLANK.value, None, cells)
    return store.UploadedRow(position, raw, ItemState.NEW.value, address_key(raw), cells)


def progress(job: ValidationJob) -> Progress:
    """The job with an estimate of the time left, from its rate so far (None before any result)."""
    if job.started_at is None or job.processed == 0 or JobStatus(job.status).finished:
        return Progress(job, 0 if JobStatus(job.status).finished else None)
    elapsed = (clock.now() - job.started_at).total_seconds()
    rate = job.processed / max(elapsed, 0.001)
    return Progress(job, round((job.total - job.processed) / rate))


def download(job: ValidationJob, fmt: str, metadata: Mapping[str, str]) -> Iterator[str]:
    """The results as CSV or JSON text chunks (``services.validation.bulk_download``)."""
    return bulk_download.download(job, fmt, metadata)
