"""One domain group through the engine's stages, with the fleet's shared caches; no database here.

No transaction is open while DNS and SMTP run (they take seconds; a pooled connection held that long per
greenlet would exhaust Postgres long before the workers were busy).

An address whose server failed temporarily (greylisting, a 421, a timeout: the engine gives it a
``retryAfter``) is answered at once with the unknown verdict the engine gave it. When the job asked for
retries (``retryTemporary``) and the retry still fits before the job's deadline with attempts left, that
answer is only *interim*: the address is also deferred and asked again later, and the later answer
replaces it. Otherwise the unknown verdict is final, which is what "settle as unknown" means.

A group the engine could not probe because our side failed (``GroupOutcome.fault``: Redis down under the
session limiter, a bug) has no verdict at all: ``ProbeNotMade`` is raised, the caller lets the claim go,
and the sweeper sends the group again; past ``MAX_CLAIMS`` it settles through ``given_up``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from core import clock
from services.jobs.options import JobOptions
from services.probing.fleet.fleet_engine import CatchAllCache, shared_engine
from verifier import sandbox
from verifier.dns import MailDomain
from verifier.engine import GroupOutcome, Options, assemble, syntax_failure_result
from verifier.results import CheckName, CheckResult, Severity, ValidationResult
from verifier.smtp import DomainProbeResult, Relay
from verifier.syntax import ParsedAddress, SyntaxFailure


class ProbeNotMade(RuntimeError):
    """The engine could not probe a group because our side failed (the Redis session limiter, a bug):
    its addresses get no verdict now; the claim is let go and the group asked again (``runs``,
    ``lane_runs``), so a fault never saves an answer about an address."""


DEFER_CLAIMS = 5  # claims of a group that may still defer greylisted addresses
MAX_CLAIMS = DEFER_CLAIMS + 3  # past this, the group keeps failing: its addresses settle as not validated
CATCH_ALL = CatchAllCache()


@dataclass(frozen=True)
class GroupVerdicts:
    settled: dict[str, ValidationResult]
    # Deferred addresses with their answer for now (shown until the retry settles them).
    interim: dict[str, ValidationResult] = field(default_factory=dict)
    retry_at: datetime | None = None
    # Set when SMTP was attempted: did no MX host answer? (services.probing.jobs.degraded reads it at
    # completion)
    unreachable: bool | None = None
    outcome: dict[str, Any] | None = None  # the engine's outcome of an unreachable group, as JSON
    # False when no check was made (``given_up``): the answers are saved marked as no verdict, so they are
    # never reused as recent verdicts (a later request with ``maxAge`` checks the address afresh).
    verdicts: bool = True

    @property
    def deferred(self) -> tuple[str, ...]:
        return tuple(self.interim)


@dataclass(frozen=True)
class Group:
    """One domain's (normalised, distinct) addresses to probe together, parsed under today's rules."""

    options: JobOptions
    members: list[ParsedAddress]
    settled: dict[str, ValidationResult]  # what the policy refuses since planning: judged by today's rules
    catch_all: bool | None = None  # the domain's cached catch-all verdict when the group was made

    @classmethod
    def of(cls, emails: list[str], options: JobOptions) -> Group:
        engine = shared_engine()
        members: list[ParsedAddress] = []
        settled: dict[str, ValidationResult] = {}
        for email in emails:
            item = engine.parse(email)
            if isinstance(item, SyntaxFailure):
                settled[email] = syntax_failure_result(email, item)
            else:
                members.append(item)
        asks = bool(members) and options.livemode and options.engine.checks_catch_all
        return cls(options, members, settled, CATCH_ALL.get(members[0].ascii_domain) if asks else None)

    @property
    def probed(self) -> bool:
        """Does probing it ask DNS and SMTP (test mode answers from the magic table)?"""
        return bool(self.members) and self.options.livemode

    @property
    def engine_options(self) -> Options:
        """The engine's options: no random-address probe when the domain's verdict is cached (so none is
        sent ahead for it either, ``Relay``)."""
        engine = self.options.engine
        return engine if self.catch_all is None else replace(engine, skip_catch_all=True)


def relay_for(groups: list[Group]) -> Relay:
    """A round's groups, probed in this order, sharing their MX addresses' round trips (``Relay``)."""
    return shared_engine().relay([(g.members if g.probed else [], g.engine_options) for g in groups])


def probe_group(
    group: Group, *, retry_until: datetime, attempt: int, relay: Relay | None = None
) -> GroupVerdicts:
    """Verdicts for the addresses of one domain (one of a round's groups, in its order, with ``relay``)."""
    members, options, settled = group.members, group.options, dict(group.settled)
    if not members:
        return GroupVerdicts(settled)
    retry = retry_until if options.retry_temporary and attempt < DEFER_CLAIMS else None
    if not options.livemode:  # test mode: the magic table, no DNS, no SMTP
        return _split(members, _sandboxed(options.engine, attempt), settled, retry)
    outcome = _run_with_cached_catch_all(group, relay)
    judged = _engine_judged(outcome, options.engine)
    return _with_reachability(_split(members, judged, settled, retry), outcome)


def _with_reachability(verdicts: GroupVerdicts, outcome: GroupOutcome) -> GroupVerdicts:
    """Record whether an MX answered (groups whose probe never tried to connect are left out, as in
    ``Engine.verify_many``), keeping an unreachable group's outcome for re-assembly as degraded."""
    probe = outcome.probe
    if probe is None or not probe.transcript:
        return verdicts
    kept = None
    if probe.unreachable and outcome.mail_domain is not None:
        kept = {"mailDomain": outcome.mail_domain.to_dict(), "probe": probe.to_dict()}
    return replace(verdicts, unreachable=probe.unreachable, outcome=kept)


def degraded_results(
    emails: list[str], outcome: dict[str, Any] | None, options: Options
) -> dict[str, ValidationResult]:
    """The results of an unreachable group re-assembled with the checker marked degraded."""
    if outcome is None:
        return {}
    engine = shared_engine()
    mail_domain = MailDomain.from_dict(outcome["mailDomain"])
    probe = DomainProbeResult.from_dict(outcome["probe"])
    parsed = (engine.parse(email) for email in emails)
    return {
        item.email: assemble(item, mail_domain, probe, options, degraded=True)
        for item in parsed
        if isinstance(item, ParsedAddress)
    }


def given_up(emails: list[str], failures: int) -> GroupVerdicts:
    """Addresses whose check could not be made: their group's claims failed ``failures`` times (a fault of
    ours that did not pass, a bug, a poisoned row). Spec 4.2 for an address that cannot be validated: still
    answered, invalid, score 0, with a failed check whose reason says the check could not be made (never
    a reason about the mailbox). ``domain`` is the check named: every job, quickMode too, reaches it."""
    reason = (
        f"The check could not be made: our checker failed on this address {failures} times. "
        "Nothing is known about the mailbox; validate it again later."
    )
    check = CheckResult(CheckName.DOMAIN, False, "Not validated.", {}, status="fail", reason=reason)
    settled = {
        email: ValidationResult(
            email, False, 0, Severity.INVALID, {check.check: check}, (reason,), input=email
        )
        for email in emails
    }
    return GroupVerdicts(settled, verdicts=False)


def _run_with_cached_catch_all(group: Group, relay: Relay | None) -> GroupOutcome:
    """Stages 2-3, skipping the random-address probe when the domain's verdict is cached."""
    domain = group.members[0].ascii_domain
    outcome = shared_engine().run_group(group.members, group.engine_options, relay)
    if outcome.fault is not None:
        raise ProbeNotMade(f"the SMTP probe of {domain} was not made ({outcome.fault})")
    if outcome.probe is None:
        return outcome
    if group.catch_all is not None:
        return GroupOutcome(outcome.mail_domain, replace(outcome.probe, catch_all=group.catch_all))
    if group.options.engine.checks_catch_all:
        CATCH_ALL.remember(domain, outcome.probe.catch_all)
    return outcome


Judged = Callable[[ParsedAddress], tuple[ValidationResult, timedelta | None]]


def _engine_judged(outcome: GroupOutcome, options: Options) -> Judged:
    """A member's result from the group's DNS and SMTP outcome, and how long its server asked us to wait."""
    return lambda member: (
        assemble(member, outcome.mail_domain, outcome.probe, options),
        _retry_wait(outcome, member.email),
    )


def _sandboxed(options: Options, attempt: int) -> Judged:
    """A member's test-mode result (``verifier.sandbox``), on the claim's ``attempt``."""

    def judged(member: ParsedAddress) -> tuple[ValidationResult, timedelta | None]:
        wait = sandbox.retry_after(member, options, attempt=attempt)
        result = sandbox.result(member, options, attempt=attempt)
        return result, None if wait is None else timedelta(seconds=wait)

    return judged


def _split(
    members: list[ParsedAddress],
    judged: Judged,
    settled: dict[str, ValidationResult],
    retry_until: datetime | None,
) -> GroupVerdicts:
    now, interim, latest = clock.now(), {}, None
    for member in members:
        result, wait = judged(member)
        if wait is not None and retry_until is not None and now + wait < retry_until:
            interim[member.email] = result
            latest = max(latest or now, now + wait)
        else:
            settled[member.email] = result
    return GroupVerdicts(settled, interim, latest)


def _retry_wait(outcome: GroupOutcome, email: str) -> timedelta | None:
    """How long the server asked us to wait before asking about ``email`` again, if it asked."""
    if outcome.probe is None:
        return None
    try:
        probe = outcome.probe[email]
    except KeyError:
        return None
    if not probe.retryable or probe.retry_after is None:
        return None
    return timedelta(seconds=probe.retry_after)
