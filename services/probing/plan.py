"""Planning a job: parse every stored input, settle syntax failures, cut the rest into domain groups.

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

import json

from sqlalchemy import exists, select, text, update
from sqlalchemy.orm import Session

from core import clock
from models.jobs import ItemState, JobItem, JobStatus, ValidationJob
from models.session import transaction
from services.jobs.options import result_row
from services.probing import runs
from services.probing.fleet_engine import shared_engine
from verifier.engine import syntax_failure_result
from verifier.syntax import SyntaxFailure

PARSE_CHUNK = 2_000

_SETTLE_FAILURES = text("""
UPDATE job_items i SET state = 'done', email = r.email, result = r.result, score = r.score,
       severity = r.severity
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(position int, email text, result jsonb, score int,
                                                    severity text)
WHERE i.job_id = :job AND i.position = r.position AND i.state = 'new'
""")
_MARK_PARSED = text("""
UPDATE job_items i SET state = 'pending', email = r.email, domain = r.domain
FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(position int, email text, domain text)
WHERE i.job_id = :job AND i.position = r.position AND i.state = 'new'
""")
_MAKE_GROUPS = text("""
INSERT INTO job_groups (job_id, domain, emails, state, attempts, next_attempt_at)
SELECT :job, domain, array_agg(email ORDER BY email), 'pending', 0, :now
FROM (SELECT email, domain, (row_number() OVER (PARTITION BY domain ORDER BY email) - 1) / :size AS chunk
      FROM (SELECT DISTINCT email, domain FROM job_items WHERE job_id = :job AND state = 'pending') d) c
GROUP BY domain, chunk
ORDER BY chunk, domain
""")


def plan(job_id: int) -> None:
    """Parse, then group and dispatch; safe to run twice or concurrently (see the module docstring)."""
    while parse_chunk(job_id):
        pass
    with transaction() as session:
        make_groups(session, job_id)


def parse_chunk(job_id: int, limit: int = PARSE_CHUNK) -> int:
    """Parse up to ``limit`` unparsed items; the number parsed (0 when none are left unlocked)."""
    with transaction() as session:
        return parse_rows(session, job_id, limit)


def parse_rows(session: Session, job_id: int, limit: int) -> int:
    """``parse_chunk`` in ``session``: the rows taken stay locked until it commits."""
    rows = session.execute(
        select(JobItem.position, JobItem.input)
        .where(JobItem.job_id == job_id, JobItem.state == ItemState.NEW.value)
        .order_by(JobItem.position)
        .limit(limit)
        .with_for_update(skip_locked=True)
    ).all()
    failures, parsed = _parse([(row.position, row.input) for row in rows])
    if failures:
        session.execute(_SETTLE_FAILURES, {"job": job_id, "rows": json.dumps(failures)})
        runs.add_counts(session, job_id, {"invalid": len(failures)})
    if parsed:
        session.execute(_MARK_PARSED, {"job": job_id, "rows": json.dumps(parsed)})
    return len(rows)


def _parse(rows: list[tuple[int, str]]) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    engine = shared_engine()
    failures: list[dict[str, object]] = []
    parsed: list[dict[str, object]] = []
    for position, raw in rows:
        item = engine.parse(raw)
        if isinstance(item, SyntaxFailure):
            result = syntax_failure_result(raw, item)
            failures.append({"position": position, **result_row(result.email, result)})
        else:
            parsed.append({"position": position, "email": item.email, "domain": item.ascii_domain})
    return failures, parsed


def make_groups(session: Session, job_id: int) -> None:
    """Once per job, once every row is parsed: the domain groups, then the first window of them to the
    broker (after commit)."""
    if _unparsed(session, job_id):
        return  # another planner holds rows: it groups the job after its commit (module docstring)
    now = clock.now()
    claimed = session.execute(
        update(ValidationJob)
        .where(ValidationJob.id == job_id, ValidationJob.planned_at.is_(None))
        .where(ValidationJob.status.in_([JobStatus.QUEUED.value, JobStatus.RUNNING.value]))
        .values(planned_at=now, status=JobStatus.RUNNING.value, started_at=now)
        .returning(ValidationJob.id)
    ).first()
    if claimed is None:
        return
    size = shared_engine().config.smtp_max_rcpt_per_session
    session.execute(_MAKE_GROUPS, {"job": job_id, "now": now, "size": size})
    if not runs.complete_if_done(session, job_id):
        runs.fill_window(session, job_id)


def _unparsed(session: Session, job_id: int) -> bool:
    """Does the job still have rows in ``new``, locked by another planner or not? (A plain read: it sees
    a row another transaction is parsing as ``new`` until that one commits, and never waits for it.)"""
    unparsed = exists().where(JobItem.job_id == job_id, JobItem.state == ItemState.NEW.value)
    return bool(session.scalar(select(unparsed)))
