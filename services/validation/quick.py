"""``POST /validate``: one address, answered in the request.

quickMode never leaves the web process: syntax, DNS through the shared Redis cache, lists, scoring; no
SMTP (spec 2.2 skips it), so the answer takes milliseconds and a slow mail server cannot hold a web
thread. It is still recorded as a completed job of one, with its event, exactly when it is charged. The
common case is one autocommitted statement (``services.jobs.store.charge_and_insert_finished_single``): the
charge, the job and its item in one round trip; the charging transaction covers the rest (a period's first
charge, a quota threshold, an account with a ``validation.completed`` subscriber, whose event needs its
payload). Without quickMode the address goes to the workers like a batch of one
(``services.validation.submit``).

Trade-off (docs/decisions.md): the engine runs before the charge, so a request the quota refuses has
already cost its few milliseconds of engine time (bounded by the rate limit, which admitted it); in
exchange the period's row lock is never held across a DNS lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from core import clock
from models.jobs import JobKind
from models.session import transaction
from services.auth import Actor
from services.jobs import list_rows, recent, store
from services.jobs.options import JobOptions, stamped
from services.probing.fleet.fleet_engine import shared_engine
from services.probing.jobs import completion
from services.suppression import lookup
from services.suppression.answers import suppressed_result
from services.usage import charging
from services.usage import sandbox as sandbox_usage
from services.usage.quota import QuotaStatus
from verifier import sandbox
from verifier.engine import Options, assemble, syntax_failure_result
from verifier.results import JsonValue, ValidationResult
from verifier.syntax import ParsedAddress, SyntaxFailure


@dataclass(frozen=True)
class QuickAnswer:
    public_id: str
    result: dict[str, JsonValue]  # as stored (``ValidationResult.to_dict``)
    quota: QuotaStatus | None  # what its charge left; None in test mode, which charges nothing


def validate_quick(actor: Actor, email: str, options: JobOptions) -> QuickAnswer:
    """Judge ``email`` without SMTP (or take the account's recent verdict on it, when ``options.max_age``
    allows one), then charge one validation and record it together.

    Its verdict is kept for later requests only when this one names a ``max_age`` (or the service has a
    default): a quick verdict is drawn again in about a millisecond from the shared DNS cache, and every
    quick validation writing one cost its one statement a sixth more Postgres time (docs/benchmarks.md).
    Test mode: the sandbox judges it (``verifier.sandbox``) and nothing is charged. An address on the
    account's suppression list is answered from it (``services.suppression.answers``), charged alike."""
    options = replace(options, livemode=actor.livemode)
    parsed = shared_engine().parse(email)
    normalised = None if isinstance(parsed, SyntaxFailure) or not options.max_age else parsed.email
    stored = suppressed_answer(actor, email, parsed)
    if stored is not None:
        normalised = None  # the list's answer, not a verdict of ours: never remembered (``answers``)
    else:
        stored = recent_answer(actor, email, normalised, options) or stamped(
            _judged(email, parsed, options.engine, sandboxed=not actor.livemode).to_dict(), clock.now()
        )
    public_id = store.new_public_id(JobKind.SINGLE)
    single = store.FinishedSingle(
        public_id, actor.account.id, actor.key_id, options, email, stored, normalised
    )
    if not actor.livemode:
        _record_uncharged(actor, single)
        return QuickAnswer(public_id, single.stored, None)
    charge = charging.statement_charge(actor.account, 1, public_id)
    quota = store.charge_and_insert_finished_single(charge, single) or _charge_and_record(actor, single)
    return QuickAnswer(public_id, single.stored, quota)


def suppressed_answer(
    actor: Actor, raw: str, parsed: ParsedAddress | SyntaxFailure
) -> dict[str, JsonValue] | None:
    """The suppression list's answer to ``raw`` when the account's list (of this mode) holds it."""
    if isinstance(parsed, SyntaxFailure):
        return None
    with transaction() as session:
        found = lookup.suppressed(session, actor.account.id, actor.livemode, [parsed.email])
    evidence = found.get(parsed.email)
    return None if evidence is None else suppressed_result(raw, parsed, evidence, clock.now())


def recent_answer(
    actor: Actor, raw: str, verdict_email: str | None, options: JobOptions
) -> dict[str, JsonValue] | None:
    """The account's recent verdict on ``verdict_email`` (the normalised address) within ``max_age``, as
    the answer to ``raw``; None when there is none (or none was asked for: ``verdict_email`` None)."""
    if verdict_email is None:
        return None
    since = clock.now() - timedelta(seconds=options.max_age)
    with transaction() as session:
        found = recent.find(session, actor.account.id, options.to_json(), [verdict_email], since)
    hit = found.get(verdict_email)
    return None if hit is None else list_rows.answer(JobKind.SINGLE.value, 0, raw, None, hit)


def _charge_and_record(actor: Actor, single: store.FinishedSingle) -> QuotaStatus:
    """The charging transaction, with the job, its item and ``validation.completed`` in it."""
    with charging.charged_transaction(actor.account, 1, single.public_id, by=actor) as (session, charged):
        if not charged.replayed:
            store.insert_finished_single(session, single)
            completion.emit_validation_completed(
                session, actor.account.id, actor.key_id, single.stored, elapsed_ms=0
            )
    return charged.status


def _record_uncharged(actor: Actor, single: store.FinishedSingle) -> None:
    """A test-mode answer's record: the job, its item, its test-mode event and its count in the sandbox's
    usage, no charge."""
    with transaction() as session:
        store.insert_finished_single(session, single)
        sandbox_usage.count_validations(session, actor.account, 1)
        completion.emit_validation_completed(
            session, single.account_id, single.key_id, single.stored, elapsed_ms=0, livemode=False
        )


def quick_result(raw: str, options: Options) -> ValidationResult:
    """Stages 1, 2 and 4 of the engine; stage 3 (SMTP) is what quickMode skips."""
    return _judged(raw, shared_engine().parse(raw), options)


def _judged(
    raw: str, parsed: ParsedAddress | SyntaxFailure, options: Options, *, sandboxed: bool = False
) -> ValidationResult:
    """The real parser's verdict on a syntax failure; else test mode's magic table (no DNS, no SMTP) or
    the engine's stages 2 and 4."""
    if isinstance(parsed, SyntaxFailure):
        return syntax_failure_result(raw, parsed)
    if sandboxed:
        return sandbox.result(parsed, options)
    outcome = shared_engine().run_group([parsed], options)
    return assemble(parsed, outcome.mail_domain, None, options)
