"""``POST /validate``: one address, answered in the request.

quickMode never leaves the web process: syntax, DNS through the shared Redis cache, lists, scoring; no
SMTP (spec 2.2 skips it), so the answer takes milliseconds and a slow mail server cannot hold a web
thread. It is still recorded as a completed job of one, with its event, in the transaction that charges
it (``services.usage.charging`` ``then``), and a validation is recorded exactly when it is charged. The
common case is one autocommitted statement (``AT_ONCE_CTES``, charging's ``AtOnce``): the charge, the job
and its item in one round trip; the ORM ``record`` runs for the rest (a period's first charge, a quota
threshold, an account with a ``validation.completed`` subscriber, whose event needs its payload).
Without quickMode the address goes to the workers like a batch of one (``services.validation.submit``).

Trade-off (docs/decisions.md): the engine runs before the charge, so a request the quota refuses has
already cost its few milliseconds of engine time (bounded by the rate limit, which admitted it); in
exchange the period's row lock is never held across a DNS lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Table, insert
from sqlalchemy.orm import Session

from core import clock
from models.base import Base
from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from services.auth import Actor
from services.jobs.options import JobOptions, json_text, storable
from services.probing import completion
from services.probing.fleet_engine import shared_engine
from services.usage.charging import AtOnce, Then
from services.validation.submit import new_public_id
from verifier.engine import Options, assemble, syntax_failure_result
from verifier.results import JsonValue, Severity, ValidationResult
from verifier.syntax import SyntaxFailure


# Built once: the values come as execute parameters, so no per-request statement construction (measured:
# building ``insert(...).values(...)`` was a fifth of ``record``'s CPU).
def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


_INSERT_JOB = insert(_table(ValidationJob)).returning(_table(ValidationJob).c.id)
_INSERT_ITEM = insert(_table(JobItem))


# The job and its item, for charging's one-statement path (``charged`` is the charge that must exist). What
# every quick validation shares is written in the text (and so in the prepared plan) rather than passed:
# the driver quotes each parameter on every call (the literals are JobKind.SINGLE, JobStatus.COMPLETED,
# Severity and ItemState.DONE; tests/limits/test_quick_charge.py reads the rows back). The severity
# counters are the severity, counted.
AT_ONCE_CTES = """
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
# Its event needs a payload built here: an account with a subscriber takes the ORM ``record``.
NO_SUBSCRIBER = """NOT EXISTS (
  SELECT 1 FROM webhook_endpoints WHERE account_id = :account_id AND status = 'enabled'
    AND events @> ARRAY['validation.completed']::text[])"""


class ChargeWith(Protocol):
    """``web.limits.charge``: charge ``count`` under ``idempotency_key``, ``then`` in its transaction
    (``at_once``: the same as one statement, tried first)."""

    def __call__(
        self, count: int, idempotency_key: str, *, then: Then | None = None, at_once: AtOnce | None = None
    ) -> object: ...


def validate_quick(actor: Actor, email: str, options: JobOptions, charge: ChargeWith) -> dict[str, JsonValue]:
    """Judge ``email`` without SMTP, then charge one validation and record it together; the result as
    stored (``ValidationResult.to_dict``, built once for the record and the answer)."""
    result = quick_result(email, options.engine)
    public_id = new_public_id(JobKind.SINGLE)
    quick = QuickValidation(public_id, email, options, result, result.to_dict())
    at_once = AtOnce(AT_ONCE_CTES, quick.statement_params(actor), only_if=NO_SUBSCRIBER)
    charge(1, public_id, then=lambda session: record(session, actor, quick), at_once=at_once)
    return quick.stored


def record(session: Session, actor: Actor, quick: QuickValidation) -> None:
    """The completed job of one, its item and ``validation.completed``: Core inserts, no ORM unit of work
    (the rows are never read back in this request)."""
    job_id = session.execute(_INSERT_JOB, quick.job_row(actor)).scalar_one()
    session.execute(_INSERT_ITEM, {"job_id": job_id, **quick.item_row()})
    completion.emit_validation_completed(session, actor.account.id, actor.key_id, quick.stored, elapsed_ms=0)


@dataclass(frozen=True)
class QuickValidation:
    """One quickMode answer waiting to be recorded."""

    public_id: str
    email: str
    options: JobOptions
    result: ValidationResult
    stored: dict[str, JsonValue]  # ``result.to_dict()``

    def job_row(self, actor: Actor) -> dict[str, Any]:
        now = clock.now()
        times = {"created_at": now, "started_at": now, "finished_at": now, "deadline": now}
        return {
            "public_id": self.public_id,
            "account_id": actor.account.id,
            "key_id": actor.key_id,
            "kind": JobKind.SINGLE.value,
            "status": JobStatus.COMPLETED.value,
            "options": self.options.to_json(),
            "total": 1,
            "processed": 1,
            **times,
            **_counters(self.result.severity),
        }

    def statement_params(self, actor: Actor) -> dict[str, Any]:
        """``AT_ONCE_CTES``'s values (charging adds ``account_id`` and ``now``), built directly: this runs on
        every quick validation (the job row's timestamps and the rows' dicts were a twentieth of its CPU).
        The JSON columns go as text Postgres parses into ``jsonb``, so the serialiser's spacing is moot."""
        result = self.result
        return {
            "public_id": self.public_id,
            "key_id": actor.key_id,
            "options": json_text(self.options.to_json()),
            "input": storable(self.email),
            "email": result.email,
            "score": result.score,
            "severity": result.severity.value,
            "result": json_text(self.stored),
        }

    def item_row(self) -> dict[str, Any]:
        return {
            "position": 0,
            "input": storable(self.email),
            "email": self.result.email,
            "state": ItemState.DONE.value,
            "score": self.result.score,
            "severity": self.result.severity.value,
            "result": self.stored,
        }


def quick_result(raw: str, options: Options) -> ValidationResult:
    """Stages 1, 2 and 4 of the engine; stage 3 (SMTP) is what quickMode skips."""
    engine = shared_engine()
    parsed = engine.parse(raw)
    if isinstance(parsed, SyntaxFailure):
        return syntax_failure_result(raw, parsed)
    outcome = engine.run_group([parsed], options)
    return assemble(parsed, outcome.mail_domain, None, options)


def _counters(severity: Severity) -> dict[str, int]:
    return {name.value: int(name is severity) for name in Severity}
