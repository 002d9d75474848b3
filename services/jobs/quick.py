"""``POST /validate``: one address, answered in the request.

quickMode never leaves the web process: syntax, DNS through the shared Redis cache, lists, scoring; no
SMTP (spec 2.2 skips it), so the answer takes milliseconds and a slow mail server cannot hold a web
thread. It is still recorded as a completed job of one, with its event, in the transaction that charges
it (``services.usage.charging`` ``then``): one connection checkout and one commit per request, and a
validation is recorded exactly when it is charged. Without quickMode the address goes to the workers
like a batch of one (``services.jobs.submit``).

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
from services.auth import AuthContext
from services.jobs import completion
from services.jobs.engine import shared_engine
from services.jobs.options import JobOptions, storable
from services.jobs.submit import new_public_id
from services.usage.charging import Then
from verifier.engine import Options, assemble, syntax_failure_result
from verifier.results import Severity, ValidationResult
from verifier.syntax import SyntaxFailure


# Built once: the values come as execute parameters, so no per-request statement construction (measured:
# building ``insert(...).values(...)`` was a fifth of ``record``'s CPU).
def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


_INSERT_JOB = insert(_table(ValidationJob)).returning(_table(ValidationJob).c.id)
_INSERT_ITEM = insert(_table(JobItem))


class ChargeWith(Protocol):
    """``web.limits.charge``: charge ``count`` under ``idempotency_key``, ``then`` in its transaction."""

    def __call__(self, count: int, idempotency_key: str, *, then: Then | None = None) -> object: ...


def validate_quick(
    auth: AuthContext, email: str, options: JobOptions, charge: ChargeWith
) -> ValidationResult:
    """Judge ``email`` without SMTP, then charge one validation and record it together; the result."""
    result = quick_result(email, options.engine)
    public_id = new_public_id(JobKind.SINGLE)
    quick = QuickValidation(public_id, email, options, result)
    charge(1, public_id, then=lambda session: record(session, auth, quick))
    return result


def record(session: Session, auth: AuthContext, quick: QuickValidation) -> None:
    """The completed job of one, its item and ``validation.completed``: Core inserts, no ORM unit of work
    (the rows are never read back in this request)."""
    job_id = session.execute(_INSERT_JOB, quick.job_row(auth)).scalar_one()
    stored = quick.result.to_dict()
    session.execute(_INSERT_ITEM, {"job_id": job_id, **quick.item_row(stored)})
    completion.emit_validation_completed(session, auth.account.id, auth.key.id, stored, elapsed_ms=0)


@dataclass(frozen=True)
class QuickValidation:
    """One quickMode answer waiting to be recorded."""

    public_id: str
    email: str
    options: JobOptions
    result: ValidationResult

    def job_row(self, auth: AuthContext) -> dict[str, Any]:
        now = clock.now()
        times = {"created_at": now, "started_at": now, "finished_at": now, "deadline": now}
        return {
            "public_id": self.public_id,
            "account_id": auth.account.id,
            "key_id": auth.key.id,
            "kind": JobKind.SINGLE.value,
            "status": JobStatus.COMPLETED.value,
            "options": self.options.to_json(),
            "total": 1,
            "processed": 1,
            **times,
            **_counters(self.result.severity),
        }

    def item_row(self, stored: dict[str, Any]) -> dict[str, Any]:
        return {
            "position": 0,
            "input": storable(self.email),
            "email": self.result.email,
            "state": ItemState.DONE.value,
            "score": self.result.score,
            "severity": self.result.severity.value,
            "result": stored,
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
