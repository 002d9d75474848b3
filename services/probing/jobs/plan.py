"""Planning a job: parse every stored input, settle syntax failures, the addresses on the account's
suppression list (``services.suppression``) and, when the job asked for ``maxAge``, the addresses a recent
verdict answers (``services.jobs.recent``); cut the rest into domain groups.

Parsing runs in chunks, each its own transaction, taking rows with ``FOR UPDATE SKIP LOCKED``: a worker
killed in the middle of a million-row list loses one chunk of work, and a second planner (a re-sent
message: the sweeper re-sends the plan of a list still planning after ``JOB_REQUEUE_SECONDS``) parses
other rows instead of waiting. Groups are then made in one set-based statement over the whole job, so
duplicates anywhere in the list are probed once; the ``planned_at IS NULL`` guard makes that step happen
exactly once however many planners reach it, and only once no row is left unparsed, counting the rows
another planner holds: a planner whose last chunk comes back empty because the remaining rows are
locked leaves the grouping to their holder, which finds none left after its commit (a holder that dies
rolls them back to ``new``, and the sweeper sends the plan again, as ``planned_at`` is still empty).

Groups hold at most one SMTP session's recipients of one domain. The first chunk of every domain gets the
lowest ids and so is dispatched first: by the time a domain's later chunks run, its catch-all verdict is
usually in the Redis cache (a trade-off: a domain's chunks may still race and probe catch-all twice).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from core import clock
from models.jobs import ItemState, JobItem, ValidationJob
from models.session import patiently, transaction
from services.jobs import recent, store
from services.jobs.options import JobOptions, result_row
from services.probing.fleet.fleet_engine import shared_engine
from services.probing.jobs import completion, dispatch
from services.probing.rounds import routes
from services.suppression import lookup
from services.suppression.answers import suppressed_result
from settings import get_settings
from verifier.engine import syntax_failure_result
from verifier.syntax import ParsedAddress, SyntaxFailure

PARSE_CHUNK = 2_000


@dataclass(frozen=True)
class Reuse:
    """What answering a job's addresses from recent verdicts needs (``services.jobs.recent``): whose, for
    which options, how old at most. A job that named no ``maxAge`` has none."""

    account_id: int
    options: dict[str, Any]
    max_age: int

    @classmethod
    def of(cls, account_id: int, options: dict[str, Any]) -> Reuse | None:
        max_age = JobOptions.from_json(options).max_age
        return cls(account_id, options, max_age) if max_age else None


def plan(job_id: int, reuse: Reuse | None, *, live: bool = False) -> None:
    """Parse, then group and dispatch; safe to run twice or concurrently (see the module docstring). A
    ``live`` job's domains are looked up for their lanes as each chunk is parsed (``routes.warm``), so
    its first groups are dispatched without waiting for DNS."""
    while parse_chunk(job_id, reuse, live=live):
        pass
    with transaction() as session:
        make_groups(session, job_id)


def plan_patiently(job_id: int) -> None:
    """``plan`` in a worker: while Postgres is unreachable it waits for it (up to half a lease) instead of
    failing, since a failed plan message is sent again only after the sweeper's requeue time."""

    def run() -> None:
        with transaction() as session:
            job = select(ValidationJob.account_id, ValidationJob.options, ValidationJob.livemode)
            account_id, options, livemode = session.execute(job.where(ValidationJob.id == job_id)).one()
        plan(job_id, Reuse.of(account_id, options), live=livemode)

    patiently(run, get_settings().jobs.lease / 2)


def parse_chunk(job_id: int, reuse: Reuse | None, limit: int = PARSE_CHUNK, *, live: bool = False) -> int:
    """Parse up to ``limit`` unparsed items; the number parsed (0 when none are left unlocked)."""
    with transaction() as session:
        return parse_rows(session, job_id, reuse, limit, live=live)


def parse_rows(session: Session, job_id: int, reuse: Reuse | None, limit: int, *, live: bool = False) -> int:
    """``parse_chunk`` in ``session``: the rows taken stay locked until it commits."""
    rows = session.execute(
        select(JobItem.position, JobItem.input)
        .where(JobItem.job_id == job_id, JobItem.state == ItemState.NEW.value)
        .order_by(JobItem.position)
        .limit(limit)
        .with_for_update(skip_locked=True)
    ).all()
    failures, parsed = _parse([(row.position, row.input) for row in rows])
    held, parsed = _suppressed(session, job_id, parsed)
    failures += held
    reused, parsed = _reused(session, reuse, parsed) if reuse else ([], parsed)
    if live:  # only the domains left to probe: a recent verdict answers the others
        routes.warm(row["domain"] for row in parsed)
    if settled := failures + reused:
        store.settle_unprobed(session, job_id, settled)
        store.add_counts(session, {job_id: Counter(str(row["severity"]) for row in settled)})
    if parsed:
        store.mark_parsed(session, job_id, parsed)
    return len(rows)


Row = dict[str, Any]


def _parse(rows: list[tuple[int, str]]) -> tuple[list[Row], list[Row]]:
    engine = shared_engine()
    failures: list[Row] = []
    parsed: list[Row] = []
    now = clock.now()
    for position, raw in rows:
        item = engine.parse(raw)
        if isinstance(item, SyntaxFailure):
            result = syntax_failure_result(raw, item)
            failures.append({"position": position, **result_row(result.email, result, now)})
        else:
            parsed.append({"position": position, "email": item.email, "domain": item.ascii_domain})
    return failures, parsed


def _suppressed(session: Session, job_id: int, parsed: list[Row]) -> tuple[list[Row], list[Row]]:
    """The rows the account's suppression list holds, settled with its answer (``services.suppression``),
    and the rest. Their input is parsed again: suppressed rows are few, and a row keeps only its email."""
    found = lookup.suppressed_in_job(session, job_id, [row["email"] for row in parsed])
    if not found:
        return [], parsed
    engine, now = shared_engine(), clock.now()
    held = []
    for row in parsed:
        if (evidence := found.get(row["email"])) is not None:
            item = cast(ParsedAddress, engine.parse(row["email"]))
            result = suppressed_result(row["email"], item, evidence, now)
            held.append({**row, "result": result, "score": 0, "severity": result["severity"]})
    return held, [row for row in parsed if row["email"] not in found]


def _reused(session: Session, reuse: Reuse, parsed: list[Row]) -> tuple[list[Row], list[Row]]:
    """The rows a recent verdict answers, settled with its copy, and the rest, still to probe."""
    if not parsed:
        return [], parsed
    since = clock.now() - timedelta(seconds=reuse.max_age)
    emails = [row["email"] for row in parsed]
    found = recent.find(session, reuse.account_id, reuse.options, emails, since)
    reused = [{**row, **_settled_by(found[row["email"]])} for row in parsed if row["email"] in found]
    return reused, [row for row in parsed if row["email"] not in found]


def _settled_by(result: dict[str, Any]) -> Row:
    return {"result": result, "score": result["score"], "severity": result["severity"]}


def make_groups(session: Session, job_id: int) -> None:
    """Once per job, once every row is parsed: the domain groups, then the first window of them to the
    broker (after commit)."""
    if _unparsed(session, job_id):
        return  # another planner holds rows: it groups the job after its commit (module docstring)
    now = clock.now()
    if not store.mark_planned(session, job_id, now):
        return
    store.make_groups(session, job_id, shared_engine().config.smtp_max_rcpt_per_session, now)
    if not completion.complete(session, [job_id]):
        dispatch.fill_window(session, job_id)


def _unparsed(session: Session, job_id: int) -> bool:
    """Does the job still have rows in ``new``, locked by another planner or not? (A plain read: it sees
    a row another transaction is parsing as ``new`` until that one commits, and never waits for it.)"""
    unparsed = exists().where(JobItem.job_id == job_id, JobItem.state == ItemState.NEW.value)
    return bool(session.scalar(select(unparsed)))
