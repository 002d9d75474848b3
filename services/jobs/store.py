"""The writes of the validation job tables (``validation_jobs``, ``job_items``, ``job_groups``): their SQL
lives here once, so a new column or state is added in one place.

Statements that write many rows take them as one JSON parameter read by ``jsonb_to_recordset``: a lane's
save writes every group of a round in a handful of statements whatever their number
(``services.probing.rounds.saving``).

Jobs as clients submit them: a new column of ``validation_jobs`` goes in ``open_job`` (every job a
client submits) and in ``FinishedSingle`` (a quickMode answer's job, written with its charge by one
statement or, when that statement's conditions do not hold, in the charging transaction).
"""

from __future__ import annotations

import csv
import io
import itertools
import secrets
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple, cast

import psycopg2
from sqlalchemy import (
    Table,
    TextClause,
    and_,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.orm import Session

from core import clock
from models import prepared
from models.base import Base
from models.jobs import GroupState, ItemState, JobGroup, JobItem, JobKind, JobStatus, ValidationJob
from models.usage import UsageCharge
from services.jobs import list_rows, recent
from services.jobs.options import JobOptions, json_text, storable
from services.usage import charging
from services.usage.quota import QuotaStatus
from verifier.results import JsonValue, Severity

# ---------------------------------------------------------------------------------------------------------
# Jobs as clients submit them (validation_jobs, and a new job's items)
# ---------------------------------------------------------------------------------------------------------

PREFIXES = {JobKind.SINGLE: "val_", JobKind.BATCH: "bat_", JobKind.BULK: "blk_"}


def new_public_id(kind: JobKind) -> str:
    return PREFIXES[kind] + secrets.token_hex(12)


def open_job(
    session: Session,
    *,
    account_id: int,
    key_id: int | None,
    kind: JobKind,
    options: JobOptions,
    lifetime: timedelta,
    total: int = 0,
    idempotency_key: str | None = None,
    digest: str | None = None,
    source: str | None = None,
    file_name: str | None = None,
) -> ValidationJob:
    """A new job in state ``uploading`` (stored, not charged, seen by no one), due to end ``lifetime`` from
    now; flushed, so its id is known."""
    now = clock.now()
    job = ValidationJob(
        public_id=new_public_id(kind),
        account_id=account_id,
        key_id=key_id,
        kind=kind.value,
        status=JobStatus.UPLOADING.value,
        options=options.to_json(),
        source=source,
        file_name=file_name,
        total=total,
        created_at=now,
        deadline=now + lifetime,
        idempotency_key=idempotency_key,
        request_digest=digest,
        livemode=options.livemode,
    )
    session.add(job)
    session.flush()
    return job


def insert_items(session: Session, job_id: int, inputs: Sequence[str]) -> int:
    """One row per input, duplicates marked (``list_rows``); the number of distinct addresses."""
    stored = [storable(raw) for raw in inputs]
    keys, firsts = list_rows.first_rows(stored)
    items = [
        {"job_id": job_id, "position": i, "input": raw, "state": ItemState.NEW.value}
        | {"key": keys[i], "duplicate_of": firsts[i]}
        for i, raw in enumerate(stored)
    ]
    session.execute(insert(JobItem), items)
    return len(set(keys))


def list_stored(job: ValidationJob, *, total: int, digest: str, columns: list[str] | None) -> None:
    """An uploaded list is in: its counts and digest; the sweeper's clock for abandoned uploads starts now,
    not when the list started coming."""
    job.total, job.request_digest, job.created_at, job.columns = total, digest, clock.now(), columns


def release_idempotency_key(session: Session, account_id: int, key: str, *, created_before: datetime) -> None:
    session.execute(
        update(ValidationJob)
        .where(ValidationJob.account_id == account_id, ValidationJob.idempotency_key == key)
        .where(ValidationJob.created_at < created_before)
        .values(idempotency_key=None)
    )


def delete_job(session: Session, job_id: int) -> None:
    """The job and (by cascade) its rows."""
    session.execute(delete(ValidationJob).where(ValidationJob.id == job_id))


def open_to_workers(session: Session, job_id: int) -> ValidationJob:
    """An ``uploading`` job becomes ``queued``, created as of now."""
    return session.scalars(
        update(ValidationJob)
        .where(ValidationJob.id == job_id, ValidationJob.status == JobStatus.UPLOADING.value)
        .values(status=JobStatus.QUEUED.value, created_at=clock.now())
        .returning(ValidationJob)
    ).one()


def cancel_job(session: Session, job_id: int) -> ValidationJob | None:
    """A queued or running job becomes ``cancelled`` with its groups not started; None if it was not
    queued or running."""
    stopped = session.scalars(
        update(ValidationJob)
        .where(
            ValidationJob.id == job_id,
            ValidationJob.status.in_([JobStatus.QUEUED.value, JobStatus.RUNNING.value]),
        )
        .values(status=JobStatus.CANCELLED.value, finished_at=clock.now())
        .returning(ValidationJob)
    ).one_or_none()
    if stopped is not None:
        session.execute(
            update(JobGroup)
            .where(
                JobGroup.job_id == job_id,
                JobGroup.state.in_([GroupState.PENDING.value, GroupState.QUEUED.value]),
            )
            .values(state=GroupState.CANCELLED.value)
        )
    return stopped


def expire_uploads(session: Session, now: datetime, abandoned_before: datetime) -> list[int]:
    """Open the jobs left ``uploading`` since before ``abandoned_before`` that were charged (their web
    process died between the charge and opening them), delete the others; the ids opened."""
    abandoned = select(ValidationJob.id).where(
        ValidationJob.status == JobStatus.UPLOADING.value, ValidationJob.created_at < abandoned_before
    )
    charged = exists().where(
        UsageCharge.account_id == ValidationJob.account_id,
        UsageCharge.idempotency_key == ValidationJob.public_id,
    )
    opened = session.scalars(
        update(ValidationJob)
        .where(ValidationJob.id.in_(abandoned.scalar_subquery()), charged)
        .values(status=JobStatus.QUEUED.value, created_at=now)
        .returning(ValidationJob.id)
    )
    ids = list(opened)
    session.execute(delete(ValidationJob).where(ValidationJob.id.in_(abandoned.scalar_subquery())))
    return ids


# An uploaded list's rows arrive by COPY, in chunks: every field quoted; \N in ``key`` or ``cells`` means
# NULL (a key is lowercase, so never \N).
_COPY = (
    "COPY job_items (job_id, position, input, state, key, cells) FROM STDIN "
    "WITH (FORMAT csv, NULL '\\N', FORCE_NULL (key, cells))"
)
_MARK_DUPLICATES = text("""
UPDATE job_items i SET duplicate_of = d.first
FROM (SELECT position, min(position) OVER (PARTITION BY key) AS first
      FROM job_items WHERE job_id = :job AND key IS NOT NULL) d
WHERE i.job_id = :job AND i.position = d.position AND d.first <> d.position
""")
_DISTINCT = text("SELECT count(DISTINCT key) FROM job_items WHERE job_id = :job")


@dataclass(frozen=True)
class UploadedRow:
    """One row of an uploaded list as stored: ``key`` and ``cells`` (a JSON list) may be absent."""

    position: int
    input: str
    state: str
    key: str | None
    cells: str | None


def copy_items(session: Session, job_id: int, rows: Iterable[UploadedRow]) -> None:
    """Store a chunk of an uploaded list's rows with one ``COPY`` (flat memory, whatever the list's size)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows(
        (job_id, row.position, row.input, row.state, _or_null(row.key), _or_null(row.cells)) for row in rows
    )
    buffer.seek(0)
    session.connection().connection.cursor().copy_expert(_COPY, buffer)


def _or_null(value: str | None) -> str:
    return "\\N" if value is None else value


def mark_duplicates(session: Session, job_id: int) -> int:
    """Set ``duplicate_of`` on every stored row of the job whose key an earlier row has; the number of
    distinct addresses (what the list is charged). One set-based statement, whatever the list's size."""
    session.execute(_MARK_DUPLICATES, {"job": job_id})
    return distinct_addresses(session, job_id)


def distinct_addresses(session: Session, job_id: int) -> int:
    return int(session.scalar(_DISTINCT, {"job": job_id}) or 0)


# ---------------------------------------------------------------------------------------------------------
# Jobs answered in the request (quickMode): the completed job of one and its item
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FinishedSingle:
    """One quickMode answer waiting to be recorded as a completed job of one."""

    public_id: str
    account_id: int
    key_id: int | None
    options: JobOptions
    email: str  # as submitted
    # ``ValidationResult.to_dict()`` as stored (``options.stamped``, or a recent verdict's copy), built once
    # for the record and the answer
    stored: dict[str, JsonValue]
    verdict_email: str | None = None  # the normalised address its verdict is remembered by (None: not kept)

    @property
    def severity(self) -> Severity:
        return Severity(str(self.stored["severity"]))

    def job_row(self) -> dict[str, Any]:
        now = clock.now()
        times = {"created_at": now, "started_at": now, "finished_at": now, "deadline": now}
        return {
            "public_id": self.public_id,
            "account_id": self.account_id,
            "key_id": self.key_id,
            "kind": JobKind.SINGLE.value,
            "status": JobStatus.COMPLETED.value,
            "options": self.options.to_json(),
            "livemode": self.options.livemode,
            "total": 1,
            "processed": 1,
            **times,
            **_counters(self.severity),
        }

    def item_row(self) -> dict[str, Any]:
        return {
            "position": 0,
            "input": storable(self.email),
            "email": self.stored["email"],
            "state": ItemState.DONE.value,
            "score": self.stored["score"],
            "severity": self.stored["severity"],
            "result": self.stored,
        }

    def statement_params(self) -> dict[str, Any]:
        """``_CHARGED_SINGLE``'s own values (the charge's come with it), built directly: this runs on every
        quick validation (the job row's timestamps and the rows' dicts were a twentieth of its CPU). The
        JSON columns go as text Postgres parses into ``jsonb``, so the serialiser's spacing is moot."""
        stored = self.stored
        return {
            "public_id": self.public_id,
            "key_id": self.key_id,
            "options": json_text(self.options.to_json()),
            "input": storable(self.email),
            "email": stored["email"],
            "score": stored["score"],
            "severity": stored["severity"],
            "result": json_text(stored),
            "verdict_email": self.verdict_email,
        }


def _counters(severity: Severity) -> dict[str, int]:
    return {name.value: int(name is severity) for name in Severity}


def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


# Built once: the values come as execute parameters, so no per-request statement construction (measured:
# building ``insert(...).values(...)`` was a fifth of the record's CPU).
_INSERT_JOB = insert(_table(ValidationJob)).returning(_table(ValidationJob).c.id)
_INSERT_ITEM = insert(_table(JobItem))


# A quickMode answer's verdict, kept as ``recent`` keeps a job's (its job's id: ``id`` of ``job``).
_SINGLE_VERDICT = (
    "SELECT CAST(:account_id AS bigint) AS account_id, CAST(:options AS jsonb) AS options, "
    "CAST(:verdict_email AS text) AS email, CAST(:result AS jsonb) AS result, id AS job_id, 0 AS position "
    "FROM job"
)
_REMEMBER_SINGLE = text(
    f"WITH job AS (SELECT CAST(:job_id AS bigint) AS id), {recent.remember_cte(_SINGLE_VERDICT)} SELECT 1"
)


def insert_finished_single(session: Session, single: FinishedSingle) -> None:
    """The job and its item by Core inserts, no ORM unit of work (the rows are never read back here)."""
    job_id = session.execute(_INSERT_JOB, single.job_row()).scalar_one()
    session.execute(_INSERT_ITEM, {"job_id": job_id, **single.item_row()})
    if single.verdict_email is not None:
        params = {"job_id": job_id, "account_id": single.account_id}
        session.execute(_REMEMBER_SINGLE, {**params, **single.statement_params()})


# The job and its item after the charge (``charging.charge_ctes``: ``charged`` is the charge that must exist;
# ``:account_id`` and ``:now`` are the charge's values). What every quick validation shares is written in
# the text (and so in the prepared plan) rather than passed: the driver quotes each parameter on every call
# (the literals are JobKind.SINGLE, JobStatus.COMPLETED, Severity and ItemState.DONE;
# tests/limits/test_quick_charge.py reads the rows back). The severity counters are the severity, counted.
_FINISHED_SINGLE_CTES = """
job AS (
  INSERT INTO validation_jobs (public_id, account_id, key_id, kind, status, options, total, processed,
    valid, warning, invalid, created_at, started_at, finished_at, deadline)
  SELECT :public_id, :account_id, :key_id, 'single', 'completed',
    CAST(:options AS jsonb), 1, 1, CAST(:severity = 'valid' AS int),
    CAST(:severity = 'warning' AS int), CAST(:severity = 'invalid' AS int),
    :now, :now, :now, :now
  FROM charged RETURNING id
), item AS (
  INSERT INTO job_items (job_id, position, input, email, state, score, severity, result)
  SELECT id, 0, :input, :email, 'done', :score, :severity, CAST(:result AS jsonb) FROM job
)"""
# ``validation.completed`` needs a payload built in Python: an account with a subscriber (an endpoint, or a
# live listener of live mode: ``services.webhooks.listener_queue``) takes the charging transaction, which
# emits it.
_NO_SUBSCRIBER = """NOT EXISTS (
  SELECT 1 FROM webhook_endpoints WHERE account_id = :account_id AND status = 'enabled'
    AND events @> ARRAY['validation.completed']::text[])
  AND NOT EXISTS (
  SELECT 1 FROM event_listeners WHERE account_id = :account_id AND livemode AND expires_at > :now
    AND events @> ARRAY['validation.completed']::text[])"""
_CHARGED_SINGLE = (
    f"WITH {charging.charge_ctes(only_if=_NO_SUBSCRIBER)}, {_FINISHED_SINGLE_CTES}, "
    f"{recent.remember_cte(_SINGLE_VERDICT)}\n{charging.LEAVE_CHARGED}"
)


def charge_and_insert_finished_single(
    charge: charging.StatementCharge, single: FinishedSingle
) -> QuotaStatus | None:
    """The charge, the job and its item in one autocommitted statement, one round trip
    (``models.prepared``); the quota it left, or None when its conditions did not hold and nothing was
    written (the period's first charge, a threshold, a subscriber, a replayed key): the caller then takes
    ``charging.charged_transaction`` and ``insert_finished_single``."""
    statement = prepared.committed_then(_CHARGED_SINGLE, charging.DURABLE)
    try:
        barrier = prepared.run_committed(statement, {**charge.params, **single.statement_params()})
    except psycopg2.IntegrityError:  # the claim's unique index: a key charged before
        return None
    return charge.status(barrier)


# ---------------------------------------------------------------------------------------------------------
# Items, groups, counters and completion: what probing writes (``services.probing``)
#
# Exactly-once results on at-least-once messages, in three guards:
# 1. A claim is a conditional UPDATE (``queued``, or ``running`` with an expired lease) that bumps
#    ``attempts``; no row means someone else has the group or it is done.
# 2. Items settle only while ``pending`` or ``interim``, and a job's counters grow by the rows that
#    statement changed, in the same transaction: a redelivered or taken-over group writes nothing twice
#    and counts nothing twice.
# 3. A group's own row is written only under its latest claim (``attempts`` is the fencing token): a worker
#    that lost its lease while probing still saves its results (guard 2 keeps them single), but cannot
#    mark done a group that a newer claim is working on.
# A job completes once, in the transaction where ``processed`` reaches ``total`` (its status guard).
# ---------------------------------------------------------------------------------------------------------

# Results per statement: the statement's text holds its rows' JSON, and a save run of thousands of
# addresses built as one text was most of a probes worker's peak memory.
SETTLE_CHUNK = 500
COUNTERS = ("valid", "warning", "invalid")

# Each final verdict settled is also remembered for ``options.maxAge`` (``recent``).
_SETTLED = """settled AS (
  UPDATE job_items i SET state = 'done', result = r.result, score = r.score, severity = r.severity
  FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(job bigint, email text, result jsonb, score int,
                                                      severity text)
  WHERE i.job_id = r.job AND i.email = r.email AND i.state IN ('pending', 'interim')
  RETURNING i.job_id, i.position, i.email, i.severity, i.result
)"""
_SETTLED_VERDICTS = (
    "SELECT j.account_id, j.options, s.email, s.result, s.job_id, s.position "
    "FROM settled s JOIN validation_jobs j ON j.id = s.job_id"
)
_SETTLE = text(
    f"WITH {_SETTLED}, {recent.remember_cte(_SETTLED_VERDICTS)}\nSELECT job_id, severity FROM settled"
)
_INTERIM = text("""
UPDATE job_items i SET state = 'interim', result = r.result, score = r.score, severity = r.severity
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(job bigint, email text, result jsonb, score int,
                                                    severity text)
WHERE i.job_id = r.job AND i.email = r.email AND i.state IN ('pending', 'interim')
""")
_SETTLE_FAILURES = text("""
UPDATE job_items i SET state = 'done', email = r.email, result = r.result, score = r.score,
       severity = r.severity
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(position int, email text, result jsonb, score int,
                                                    severity text)
WHERE i.job_id = :job AND i.position BETWEEN :first AND :last AND i.position = r.position
  AND i.state = 'new'
""")
_MARK_PARSED = text("""
UPDATE job_items i SET state = 'pending', email = r.email, domain = r.domain
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(position int, email text, domain text)
WHERE i.job_id = :job AND i.position BETWEEN :first AND :last AND i.position = r.position
  AND i.state = 'new'
""")
# The planner guesses 100 rows for a JSON record set and, from stale statistics (a new job's rows are
# not in them), often one for the job's unparsed rows: it then picks a nested loop that parses the JSON
# once per row, 0.65 s for a chunk of 2,000 rows (measured) and quadratic in the chunk. Joins by position
# are therefore hashed or merged, never nested, and the rows read are bounded by the chunk's positions;
# the setting ends with the statement: the transaction's later ones (the job's counters) want keyed loops.
_NO_NESTED_LOOP = text("SET LOCAL enable_nestloop = off")
_NESTED_LOOP_AGAIN = text("RESET enable_nestloop")
_REWRITE = text("""
UPDATE job_items i
SET result = r.result || jsonb_strip_nulls(jsonb_build_object('metadata', i.result->'metadata'))
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(email text, result jsonb)
WHERE i.job_id = :job AND i.email = r.email AND i.state = 'done'
""")
_COUNT = text("""
UPDATE validation_jobs j SET processed = j.processed + c.processed, valid = j.valid + c.valid,
       warning = j.warning + c.warning, invalid = j.invalid + c.invalid
FROM jsonb_to_recordset(CAST(:counts AS jsonb)) AS c(job bigint, processed int, valid int, warning int,
                                                      invalid int)
WHERE j.id = c.job
""")
_GROUPS_DONE = text("""
UPDATE job_groups g SET state = 'done', finished_at = :now, lease_until = NULL,
       unreachable = CASE WHEN c.unreachable IS NULL THEN g.unreachable ELSE c.unreachable END,
       outcome = CASE WHEN c.unreachable IS NULL THEN g.outcome ELSE c.outcome END
FROM jsonb_to_recordset(CAST(:groups AS jsonb)) AS c(group_id bigint, attempt int, unreachable boolean,
                                                      outcome jsonb)
WHERE g.id = c.group_id AND g.attempts = c.attempt AND g.state = 'running'
""")
_GROUPS_DEFERRED = text("""
UPDATE job_groups g SET state = 'pending', emails = c.ask_again, next_attempt_at = c.retry_at,
       enqueued_at = NULL, lease_until = NULL,
       unreachable = CASE WHEN c.unreachable IS NULL THEN g.unreachable ELSE c.unreachable END,
       outcome = CASE WHEN c.unreachable IS NULL THEN g.outcome ELSE c.outcome END
FROM jsonb_to_recordset(CAST(:groups AS jsonb)) AS c(group_id bigint, attempt int, unreachable boolean,
                                                      outcome jsonb, ask_again text[], retry_at timestamptz)
WHERE g.id = c.group_id AND g.attempts = c.attempt AND g.state = 'running'
""")
_LET_GO = text("""
UPDATE job_groups g SET state = 'pending', lease_until = NULL
FROM jsonb_to_recordset(CAST(:groups AS jsonb)) AS c(group_id bigint, attempt int)
WHERE g.id = c.group_id AND g.attempts = c.attempt AND g.state = 'running'
""")
_MAKE_GROUPS = text("""
INSERT INTO job_groups (job_id, domain, emails, state, attempts, next_attempt_at)
SELECT :job, domain, array_agg(email ORDER BY email), 'pending', 0, :now
FROM (SELECT email, domain, (row_number() OVER (PARTITION BY domain ORDER BY email) - 1) / :size AS chunk
      FROM (SELECT DISTINCT email, domain FROM job_items WHERE job_id = :job AND state = 'pending') d) c
GROUP BY domain, chunk
ORDER BY chunk, domain
""")


# -- items ------------------------------------------------------------------------------------------------


# Saves reach their rows by key (a job's address, a group's id, a job's id). From statistics taken while
# the tables were smaller (a new deployment, a burst of new jobs) the planner chose to scan job_items whole
# for every save, up to 25 ms a statement on a table of 20,000 rows; keyed, each row costs an index probe.
_BY_KEYS = text("SET LOCAL enable_seqscan = off")


def by_keys(session: Session) -> None:
    """The rest of ``session``'s transaction reads its rows through indexes, never by a whole-table scan."""
    session.execute(_BY_KEYS)


def settle_items(session: Session, rows: Iterable[Mapping[str, object]]) -> dict[int, Counter[str]]:
    """Final results (rows of ``job``, ``email``, ``result``, ``score``, ``severity``) for the items still
    waiting for one; per job, the severities of the rows that changed (every row of an address, duplicates
    included, shares its normalised ``email`` and settles with it)."""
    rows = iter(rows)
    per_job: defaultdict[int, Counter[str]] = defaultdict(Counter)
    while chunk := list(itertools.islice(rows, SETTLE_CHUNK)):
        for job_id, severity in session.execute(_SETTLE, {"rows": json_text(chunk)}):
            per_job[job_id][severity] += 1
    return per_job


def record_interim(session: Session, rows: Sequence[Mapping[str, object]]) -> None:
    """Answers for now (rows as ``settle_items``'s) of addresses asked again later; a later failed retry
    refreshes them, the retry that settles replaces them."""
    if rows:
        session.execute(_INTERIM, {"rows": json_text(rows)})


def settle_unprobed(session: Session, job_id: int, rows: Sequence[Mapping[str, object]]) -> None:
    """Final results of unparsed rows (``position`` and a result row) settled without a probe: not
    addresses at all, or answered from a recent verdict (``recent``)."""
    _by_position(session, _SETTLE_FAILURES, job_id, rows)


def mark_parsed(session: Session, job_id: int, rows: Sequence[Mapping[str, object]]) -> None:
    """Unparsed rows (``position``, normalised ``email``, ``domain``) now waiting for their probe."""
    _by_position(session, _MARK_PARSED, job_id, rows)


def _by_position(
    session: Session, statement: TextClause, job_id: int, rows: Sequence[Mapping[str, object]]
) -> None:
    """``statement`` over the job's rows at the positions of ``rows``, joined without nested loops
    (``_NO_NESTED_LOOP``)."""
    positions = [cast(int, row["position"]) for row in rows]
    params = {"job": job_id, "rows": json_text(rows), "first": min(positions), "last": max(positions)}
    session.execute(_NO_NESTED_LOOP)
    session.execute(statement, params)
    session.execute(_NESTED_LOOP_AGAIN)


def rewrite_results(session: Session, job_id: int, rows: Sequence[Mapping[str, object]]) -> None:
    """New ``result`` documents (rows of ``email``, ``result``) for settled items; scores and when each was
    checked (``metadata``) unchanged."""
    if rows:
        session.execute(_REWRITE, {"job": job_id, "rows": json_text(rows)})


def mark_degraded(session: Session, job_id: int) -> None:
    """The job's answers say the checker was degraded (``services.probing.jobs.degraded``)."""
    session.execute(update(ValidationJob).where(ValidationJob.id == job_id).values(checker_degraded=True))


# -- jobs: counters, completion, planning -----------------------------------------------------------------


def add_counts(session: Session, counts: Mapping[int, Mapping[str, int]]) -> None:
    """Grow each job's ``processed`` and severity counters by what was just settled, in one statement."""
    rows = [
        {"job": job_id, "processed": sum(c.values()), **{name: c.get(name, 0) for name in COUNTERS}}
        for job_id, c in counts.items()
        if sum(c.values())
    ]
    if rows:
        session.execute(_COUNT, {"counts": json_text(rows)})


def complete(session: Session, job_ids: Sequence[int]) -> list[ValidationJob]:
    """Complete the running jobs of ``job_ids`` whose every item is settled: the one statement that
    completes jobs, once each (the status guard); the jobs it completed."""
    return list(
        session.scalars(
            update(ValidationJob)
            .where(ValidationJob.id.in_(job_ids), ValidationJob.status == JobStatus.RUNNING.value)
            .where(ValidationJob.processed >= ValidationJob.total)
            .values(status=JobStatus.COMPLETED.value, finished_at=clock.now())
            .returning(ValidationJob)
        )
    )


def mark_planned(session: Session, job_id: int, now: datetime) -> bool:
    """Once per job: a queued (or running) job not yet grouped starts running; False if already done."""
    claimed = session.execute(
        update(ValidationJob)
        .where(ValidationJob.id == job_id, ValidationJob.planned_at.is_(None))
        .where(ValidationJob.status.in_([JobStatus.QUEUED.value, JobStatus.RUNNING.value]))
        .values(planned_at=now, status=JobStatus.RUNNING.value, started_at=now)
        .returning(ValidationJob.id)
    ).first()
    return claimed is not None


def make_groups(session: Session, job_id: int, size: int, now: datetime) -> None:
    """The job's domain groups of at most ``size`` distinct addresses each, in one statement over the
    whole job (duplicates anywhere in the list are probed once); every domain's first chunk first."""
    session.execute(_MAKE_GROUPS, {"job": job_id, "now": now, "size": size})


# -- groups -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A group claimed for a probe, with what the probe needs of its job."""

    group_id: int
    attempt: int  # the fencing token: only the latest claim writes the group's row (guard 3)
    job_id: int
    emails: list[str]
    options: dict[str, Any]  # parsed inside the guarded part of a round: unreadable options fail it
    deadline: datetime
    kind: str = "batch"
    domain: str = ""  # the group's (ASCII) domain: groups of several domains share a lane's round


# One constant text, so the claim of a round of any size is compiled and planned once, with the owners'
# tokens as an array beside the ids (a CASE of one WHEN per group was rebuilt and compiled per claim).
# The groups are found by their ids in the primary key and each takes its token by its id's place: joined
# to the ids as a set, the planner (its statistics behind a growing table) scanned every open group of the
# running jobs once per id, 2-5 ms a claim where the keys take 0.1 ms.
_CLAIM = text("""
UPDATE job_groups g
SET state = 'running', lease_until = :lease_until, attempts = g.attempts + 1,
    held_by = (CAST(:tokens AS text[]))[array_position(CAST(:ids AS bigint[]), g.id)]
FROM validation_jobs j
WHERE g.id = ANY(CAST(:ids AS bigint[])) AND j.id = g.job_id AND j.status = 'running'
  AND (g.state = 'queued' OR (g.state = 'running' AND g.lease_until < :now))
RETURNING g.id, g.attempts, g.job_id, g.emails, j.options, j.deadline, j.kind, g.domain
""")


def claim_groups(
    session: Session, owned_by: Mapping[int, str], now: datetime, lease_until: datetime
) -> list[Claim]:
    """Claim every group of ``owned_by`` that is free to run (queued, or its lease expired) and whose job
    runs, in one statement, leased until ``lease_until`` and held by the lane owner's token ``owned_by``
    names for it (the sweeper takes back a claim whose owner is gone: ``take_back``); ordered by group id."""
    ids = list(owned_by)
    params = {"ids": ids, "tokens": [owned_by[i] for i in ids], "now": now, "lease_until": lease_until}
    rows = session.execute(_CLAIM, params).all()
    return [
        Claim(group_id, attempt, job_id, list(emails), dict(options), deadline, kind, domain)
        for group_id, attempt, job_id, emails, options, deadline, kind, domain in sorted(rows)
    ]


@dataclass(frozen=True)
class GroupSave:
    """A claimed group after its probe: done, or pending again for the addresses to ask again later."""

    group_id: int
    attempt: int  # the claim's (guard 3)
    unreachable: bool | None  # did no MX host answer? (None: SMTP not attempted)
    outcome: dict[str, Any] | None  # an unreachable group's engine outcome, re-assembled if degraded
    ask_again: tuple[str, ...] = ()
    retry_at: datetime | None = None


def save_groups(session: Session, saves: Sequence[GroupSave]) -> None:
    """Each group done, or pending again until ``retry_at`` with only the addresses to ask again; a
    claim that is no longer the latest one (or no longer running) writes nothing."""
    done = [vars(save) for save in saves if not save.ask_again]
    deferred = [vars(save) for save in saves if save.ask_again]
    if done:
        session.execute(_GROUPS_DONE, {"now": clock.now(), "groups": json_text(done)})
    if deferred:
        session.execute(_GROUPS_DEFERRED, {"groups": json_text(deferred)})


def let_go(session: Session, claims: Sequence[Claim]) -> None:
    """The claimed groups pending again at once (a probe or save failed): the next sweep sends them."""
    rows = [{"group_id": claim.group_id, "attempt": claim.attempt} for claim in claims]
    if rows:
        session.execute(_LET_GO, {"groups": json_text(rows)})


class QueuedGroup(NamedTuple):
    """A group just marked queued, with what its lane needs: the job's account and mode."""

    group_id: int
    domain: str
    size: int
    account_id: int
    livemode: bool


def queue_due_groups(session: Session, job_id: int, limit: int, now: datetime) -> list[QueuedGroup]:
    """Mark up to ``limit`` due pending groups of the job queued (rows other transactions hold are
    skipped), by id."""
    due = (
        select(JobGroup.id)
        .where(JobGroup.job_id == job_id, JobGroup.state == GroupState.PENDING.value)
        .where(JobGroup.next_attempt_at <= now)
        .order_by(JobGroup.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    job = ValidationJob.id == job_id
    account = select(ValidationJob.account_id).where(job).scalar_subquery()
    livemode = select(ValidationJob.livemode).where(job).scalar_subquery()
    rows = session.execute(
        update(JobGroup)
        .where(JobGroup.id.in_(due.scalar_subquery()))
        .values(state=GroupState.QUEUED.value, enqueued_at=now)
        .returning(JobGroup.id, JobGroup.domain, func.cardinality(JobGroup.emails), account, livemode)
    ).all()
    return sorted(QueuedGroup(*row) for row in rows)


def take_back(session: Session, claims: Sequence[tuple[int, str]]) -> None:
    """Running groups, each still held by the token given with it, pending again: the lane owner that
    claimed them is gone. A claim made since (another token) or saved since (not running) stays."""
    if claims:
        running = JobGroup.state == GroupState.RUNNING.value
        session.execute(
            update(JobGroup)
            .where(running, tuple_(JobGroup.id, JobGroup.held_by).in_(claims))
            .values(state=GroupState.PENDING.value, lease_until=None, held_by=None, enqueued_at=None)
        )


def requeue_abandoned(session: Session, now: datetime, stale: datetime) -> None:
    """Groups whose worker died (``running`` past their lease) or whose message was lost (``queued``
    since before ``stale``) pending again."""
    abandoned = or_(
        and_(JobGroup.state == GroupState.QUEUED.value, JobGroup.enqueued_at < stale),
        and_(JobGroup.state == GroupState.RUNNING.value, JobGroup.lease_until < now),
    )
    session.execute(
        update(JobGroup).where(abandoned).values(state=GroupState.PENDING.value, enqueued_at=None)
    )
