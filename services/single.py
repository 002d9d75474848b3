"""``POST /validate``: one address, answered in the request.

quickMode never leaves the web process: syntax, DNS through the shared Redis cache, lists, scoring; no
SMTP (spec 2.2 skips it), so the answer takes milliseconds and a slow mail server cannot hold a web
thread. It is still recorded as a completed job of one, with its event, in one transaction. Without
quickMode the address goes to the workers like a batch of one (``services.jobs.submit``).
"""

from __future__ import annotations

from models.jobs import ItemState, JobItem, JobKind, JobStatus, ValidationJob
from models.session import transaction
from services import clock, job_events
from services.auth import AuthContext
from services.engine_adapters import shared_engine
from services.job_options import JobOptions, storable
from services.jobs import Charge, new_public_id
from verifier.engine import Options, assemble, syntax_failure_result
from verifier.results import Severity, ValidationResult
from verifier.syntax import SyntaxFailure


def validate_quick(auth: AuthContext, email: str, options: JobOptions, charge: Charge) -> ValidationResult:
    """Charge one validation, judge ``email`` without SMTP, record it; the engine's result."""
    public_id = new_public_id(JobKind.SINGLE)
    charge(1, public_id)
    result = quick_result(email, options.engine)
    now = clock.now()
    with transaction() as session:
        job = ValidationJob(
            public_id=public_id, account_id=auth.account.id, key_id=auth.key.id, kind=JobKind.SINGLE.value,
            status=JobStatus.COMPLETED.value, options=options.to_json(), total=1, processed=1,
            created_at=now, started_at=now, finished_at=now, deadline=now, **_counters(result.severity),
        )  # fmt: skip
        session.add(job)
        session.flush()
        session.add(
            JobItem(
                job_id=job.id,
                position=0,
                input=storable(email),
                email=result.email,
                state=ItemState.DONE.value,
                score=result.score,
                severity=result.severity.value,
                result=result.to_dict(),
            )
        )
        session.flush()
        job_events.emit_completed(session, job)
    return result


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
