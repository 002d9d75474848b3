"""The engine: ``parse`` -> ``resolve_domain`` -> ``probe_domain_group`` -> ``assemble``, and a batch runner.

Each stage is a plain function over plain data, so the Celery workers can run them in separate tasks
(``MailDomain`` and ``DomainProbeResult`` have ``to_dict``/``from_dict``); ``Engine`` chains them for the
CLI, the tests and synchronous callers. ``verify_many`` is the unit the workers run for a batch:

1. parse every distinct input once;
2. group the addresses by domain; resolve each domain once, then probe each group over its own sessions
   (``probe_domain_group`` puts every address of a domain on as few connections as it can), groups in
   parallel on a bounded thread pool (greenlets under the gevent workers), and the ``SessionLimiter``
   bounding concurrent sessions per MX IP address, so domains sharing an MX server do not flood it;
   what an egress fault or a block left unsettled is asked again over the config's next egress
   (``probe_over_egresses``);
3. if many groups were probed and no MX host of any of them said a word, the failure is ours (outbound port
   25 closed): every such result is marked degraded instead of being read as the domains' fault;
4. assemble one result per input, in input order.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import logging
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from verifier import checks
from verifier.checks import Facts
from verifier.config import EngineConfig
from verifier.dns import DomainStatus, MailDomain, MailResolver, MxRecord
from verifier.lists import DomainFacts, domain_facts, load_lists, mailbox_provider, role_match
from verifier.results import CheckName, CheckResult, Severity, ValidationResult
from verifier.scoring import Findings, judge
from verifier.smtp import (
    INTERNAL_ERROR,
    DomainProbeResult,
    LocalSessionLimiter,
    ProberFault,
    Relay,
    SessionKeeper,
    SessionLimiter,
    not_probed,
    probe_over_egresses,
)
from verifier.syntax import (
    DEFAULT_POLICY,
    ParsedAddress,
    SyntaxFailure,
    SyntaxPolicy,
    parse_input,
    result_email,
)
from verifier.typo import icann_suffixes, suggest_domain

FEATURES = frozenset(
    {
        "syntax",
        "domain",
        "mxRecords",
        "disposable",
        "roleBased",
        "catchAll",
        "typoSuggestion",
        "freeEmail",
        "corporateEmail",
        "mailboxProvider",
    }
)
DEGRADED_MIN_GROUPS = 3  # below this many unreachable domains, blame the domains, not our network
DEFAULT_WORKERS = 16
DEFAULT_SESSIONS_PER_MX_IP = 3
NO_LIST_FACTS = DomainFacts(disposable_entry=None, relay_service=None, is_free=False, is_popular=False)
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Options:
    """What to check. ``features`` holds the plan's feature names (spec 2.2); None means all of them."""

    quick_mode: bool = False
    skip_catch_all: bool = False
    features: frozenset[str] | None = None

    def __post_init__(self) -> None:
        unknown = (self.features or frozenset()) - FEATURES
        if unknown:
            raise ValueError(f"unknown feature names: {sorted(unknown)}")

    def allows(self, feature: str) -> bool:
        return self.features is None or feature in self.features

    @property
    def resolves_domain(self) -> bool:
        return self.allows("domain")

    @property
    def probes_smtp(self) -> bool:
        """quickMode skips SMTP (spec 2.2); without DNS there is no mail server to ask."""
        return not self.quick_mode and self.resolves_domain

    @property
    def checks_catch_all(self) -> bool:
        return self.probes_smtp and not self.skip_catch_all and self.allows("catchAll")


DEFAULT_OPTIONS = Options()


@dataclass(frozen=True, slots=True)
class GroupOutcome:
    """What DNS and SMTP said about one domain group. ``fault`` (``INTERNAL_ERROR``) says the probe was
    not made because our side failed: ``probe`` then holds no verdict, only "unknown, our fault"."""

    mail_domain: MailDomain | None
    probe: DomainProbeResult | None = None
    fault: str | None = None


# -- stages ------------------------------------------------------------------------------------------
def resolve_domain(parsed: ParsedAddress, resolver: MailResolver) -> MailDomain:
    """Stage 2. An address literal names its mail host itself: nothing to resolve."""
    if parsed.literal_ip is not None:
        host = str(parsed.literal_ip)
        record = MxRecord(0, host, (host,))
        return MailDomain(parsed.ascii_domain, DomainStatus.ACCEPTS_MAIL, (record,), implicit_mx=True)
    return resolver.resolve(parsed.ascii_domain)


def assemble(
    parsed: ParsedAddress,
    mail_domain: MailDomain | None,
    probe: DomainProbeResult | None,
    options: Options = DEFAULT_OPTIONS,
    *,
    degraded: bool = False,
) -> ValidationResult:
    """Stage 4: the checks the options ask for, scored (docs/scoring.md)."""
    return assemble_facts(_facts(parsed, mail_domain, probe, degraded), options)


def assemble_facts(facts: Facts, options: Options = DEFAULT_OPTIONS) -> ValidationResult:
    """Stage 4 from facts already gathered (``assemble``'s, or the sandbox's made-up ones)."""
    parsed = facts.parsed
    found = {name: build(facts, options) for name, wanted, build in CHECKS if wanted(options)}
    verdict = judge(_findings(facts, options))
    return ValidationResult(
        result_email(parsed.typed),
        verdict.is_valid,
        verdict.score,
        verdict.severity,
        found,
        verdict.recommendations,
        input=parsed.input,
    )


def syntax_failure_result(raw: object, failure: SyntaxFailure) -> ValidationResult:
    """Spec 2.1: score 0, severity invalid, only the syntax check; the input echoed as for any address."""
    check = checks.syntax_failed(failure)
    text = raw if isinstance(raw, str) else ""
    return ValidationResult(
        result_email(_printable(text)),
        False,
        0,
        Severity.INVALID,
        {check.check: check},
        (failure.reason,),
        input=_printable(text),
    )


def _facts(
    parsed: ParsedAddress, mail_domain: MailDomain | None, probe: DomainProbeResult | None, degraded: bool
) -> Facts:
    literal = parsed.is_literal
    return Facts(
        parsed=parsed,
        mail_domain=mail_domain,
        domain_probe=probe,
        lists=NO_LIST_FACTS if literal else domain_facts(parsed.ascii_domain),
        role=role_match(parsed.local_part),
        typo_domain=None if literal else suggest_domain(parsed.ascii_domain),
        provider=mailbox_provider(mail_domain.mx_hosts) if mail_domain else None,
        degraded=degraded,
    )


def _findings(facts: Facts, options: Options) -> Findings:
    """Only what the options asked for is scored: a check the plan lacks costs nothing."""
    probe = facts.address_probe if options.probes_smtp else None
    domain, allows = facts.mail_domain, options.allows
    return Findings(
        local_part=facts.parsed.local_part,
        domain_status=domain.status if domain else None,
        implicit_mx=bool(domain and domain.implicit_mx and not facts.parsed.is_literal),
        smtp=probe.verdict if probe else None,
        smtp_skipped=not options.probes_smtp,
        smtp_reason=probe.reason if probe else "",
        prober_blocked=bool(probe and probe.prober_blocked),
        retry_after=probe.retry_after if probe else None,
        checker_degraded=facts.degraded,
        provider=facts.provider.name if facts.provider else None,
        catch_all=facts.domain_probe.catch_all if probe and facts.domain_probe else None,
        catch_all_checked=options.checks_catch_all and probe is not None,
        disposable_entry=facts.lists.disposable_entry if allows("disposable") else None,
        role=facts.role if allows("roleBased") else None,
        free=facts.lists.is_free and allows("freeEmail"),
        typo_domain=facts.typo_domain if allows("typoSuggestion") else None,
    )


def _feature(name: str) -> Callable[[Options], bool]:
    return lambda options: options.allows(name)


CHECKS: tuple[tuple[str, Callable[[Options], bool], Callable[[Facts, Options], CheckResult]], ...] = (
    (CheckName.SYNTAX, lambda _: True, lambda facts, _: checks.syntax_passed(facts.parsed)),
    (CheckName.DOMAIN, _feature("domain"), lambda f, o: checks.domain_check(f, o.allows("mxRecords"))),
    (
        CheckName.DISPOSABLE,
        _feature("disposable"),
        lambda facts, options: checks.disposable_check(facts, options.allows("typoSuggestion")),
    ),
    (CheckName.ROLE_BASED, _feature("roleBased"), lambda facts, _: checks.role_check(facts)),
    (CheckName.SMTP, lambda o: o.probes_smtp, lambda facts, _: checks.smtp_check(facts)),
    (CheckName.CATCH_ALL, lambda o: o.checks_catch_all, lambda facts, _: checks.catch_all_check(facts)),
    (CheckName.FREE_EMAIL, _feature("freeEmail"), lambda facts, _: checks.free_check(facts)),
    (CheckName.CORPORATE_EMAIL, _feature("corporateEmail"), lambda facts, _: checks.corporate_check(facts)),
    (CheckName.TYPO_SUGGESTION, _feature("typoSuggestion"), lambda facts, _: checks.typo_check(facts)),
    (CheckName.MAILBOX_PROVIDER, _feature("mailboxProvider"), lambda facts, _: checks.provider_check(facts)),
)


def _printable(text: str) -> str:
    """``text`` unchanged, unless it holds lone surrogates: no UTF-8 JSON can carry those, so they are
    backslash-escaped (``\\ud800``) rather than make the result unencodable."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# -- the runner --------------------------------------------------------------------------------------
class Engine:
    """The stages chained, with one resolver (and its DNS cache) and one session limiter shared by all.

    An engine that accepts test domains (``policy.test_domains``: the mail lab; the service's
    ``ALLOW_TEST_DOMAINS``, refused in production) lets its prober reach loopback MX addresses, where the
    lab's servers are; any other engine never connects to a non-public MX address.
    """

    def __init__(
        self,
        config: EngineConfig | None = None,
        *,
        resolver: MailResolver | None = None,
        limiter: SessionLimiter | None = None,
        policy: SyntaxPolicy = DEFAULT_POLICY,
        workers: int = DEFAULT_WORKERS,
        keeper: SessionKeeper | None = None,
    ) -> None:
        config = config if config is not None else EngineConfig.from_env()
        if policy.test_domains:
            config = dataclasses.replace(config, smtp_allow_loopback_mx=True)
        self.config = config
        self.resolver = resolver if resolver is not None else MailResolver(self.config)
        self.limiter = limiter if limiter is not None else LocalSessionLimiter(DEFAULT_SESSIONS_PER_MX_IP)
        self.policy = policy
        self.workers = workers
        self.keeper = keeper  # None: every session ends with its group

    def parse(self, raw: str) -> ParsedAddress | SyntaxFailure:
        """Stage 1 under this engine's syntax policy: blanks around ``raw`` trimmed, ``raw`` kept as input."""
        return parse_input(raw, self.policy)

    def verify(self, address: str, options: Options = DEFAULT_OPTIONS) -> ValidationResult:
        """Verify one address."""
        return self.verify_many([address], options)[0]

    def verify_many(
        self, addresses: Iterable[str], options: Options = DEFAULT_OPTIONS
    ) -> list[ValidationResult]:
        """One result per input, in input order; one DNS lookup and one probe group per domain."""
        inputs = list(addresses)
        parsed = {raw: self.parse(raw) for raw in dict.fromkeys(inputs)}
        outcomes = self._run_groups(_by_domain(parsed.values()), options)
        degraded = _looks_degraded(outcomes.values())
        results = {raw: self._result(raw, item, outcomes, options, degraded) for raw, item in parsed.items()}
        return [results[raw] for raw in inputs]

    def relay(self, groups: Sequence[tuple[Sequence[ParsedAddress], Options]]) -> Relay:
        """A round's groups (each one domain's addresses with their options, in the order they will be
        probed) for ``run_group(..., relay=)``: each group's session goes on to the next group at the same
        MX address with RCPTs sent ahead for it (``verifier/smtp/relay.py``)."""
        return Relay([self._relayed(members, options) for members, options in groups], self.config)

    def _relayed(
        self, members: Sequence[ParsedAddress], options: Options
    ) -> tuple[MailDomain | None, list[str], bool]:
        first = members[0] if members else None
        if first is None or first.is_literal or not (options.resolves_domain and options.probes_smtp):
            return None, [], False
        emails = list(dict.fromkeys(member.email for member in members))
        return resolve_domain(first, self.resolver), emails, options.checks_catch_all

    def run_group(
        self, members: Sequence[ParsedAddress], options: Options, relay: Relay | None = None
    ) -> GroupOutcome:
        """Stages 2 and 3 for the addresses of one domain (one of a round's with ``relay``)."""
        first = members[0]
        mail_domain = relay.mail_domain if relay is not None else None  # resolved for the round
        if mail_domain is None and options.resolves_domain:
            mail_domain = resolve_domain(first, self.resolver)
        if mail_domain is None or first.is_literal or not options.probes_smtp:
            return GroupOutcome(mail_domain)
        emails = [member.email for member in members]
        try:
            probe = probe_over_egresses(
                mail_domain,
                emails,
                config=self.config,
                limiter=self.limiter,
                check_catch_all=options.checks_catch_all,
                keeper=self.keeper,
                relay=relay,
            )
        except ProberFault as fault:  # the injected limiter (Redis) failed: the server was not asked
            log.warning("SMTP probe of %s not made, our side failed: %s", mail_domain.domain, fault)
            return _not_probed(mail_domain, emails)
        except Exception:  # a bug: it must neither fail the other groups of a batch nor pass for an answer
            log.exception("SMTP probe of %s failed", mail_domain.domain)
            return _not_probed(mail_domain, emails)
        return GroupOutcome(mail_domain, probe)

    def _run_groups(
        self, groups: dict[str, list[ParsedAddress]], options: Options
    ) -> dict[str, GroupOutcome]:
        if not groups:
            return {}
        with ThreadPoolExecutor(max_workers=min(self.workers, len(groups))) as pool:
            futures = {
                domain: pool.submit(self.run_group, members, options) for domain, members in groups.items()
            }
            return {domain: future.result() for domain, future in futures.items()}

    def _result(
        self,
        raw: str,
        item: ParsedAddress | SyntaxFailure,
        outcomes: dict[str, GroupOutcome],
        options: Options,
        degraded: bool,
    ) -> ValidationResult:
        if isinstance(item, SyntaxFailure):
            return syntax_failure_result(raw, item)
        outcome = outcomes[item.ascii_domain]
        unreachable = bool(outcome.probe and outcome.probe.unreachable)
        return assemble(item, outcome.mail_domain, outcome.probe, options, degraded=degraded and unreachable)


def _not_probed(mail_domain: MailDomain, emails: list[str]) -> GroupOutcome:
    """Our own failure, never read as an answer: each address "unknown" for ``INTERNAL_ERROR``."""
    return GroupOutcome(mail_domain, not_probed(mail_domain, emails, INTERNAL_ERROR), INTERNAL_ERROR)


def _by_domain(items: Iterable[ParsedAddress | SyntaxFailure]) -> dict[str, list[ParsedAddress]]:
    groups: dict[str, list[ParsedAddress]] = {}
    for item in items:
        if isinstance(item, ParsedAddress):
            groups.setdefault(item.ascii_domain, []).append(item)
    return groups


def _looks_degraded(outcomes: Iterable[GroupOutcome]) -> bool:
    """Many domains probed and not one MX host answered: our outbound port 25 is the likely culprit."""
    probes = [outcome.probe for outcome in outcomes if outcome.probe is not None and outcome.probe.transcript]
    return len(probes) >= DEGRADED_MIN_GROUPS and all(probe.unreachable for probe in probes)


def load_reference_data() -> None:
    """Load the lists and suffix tables the checks read, so that a serving process's first validation
    does not wait for them (measured: 0.19 s on the first request of a fresh web worker)."""
    load_lists()
    icann_suffixes()


def ready_to_serve() -> None:
    """A serving process (a web or Celery worker) loads the reference data, then moves everything alive
    so far out of the garbage collector's sight: those ~140,000 long-lived objects were walked again by
    every full collection (83 ms each in the web; a fifth of a probes worker's CPU in a list)."""
    load_reference_data()
    gc.freeze()


@functools.cache
def default_engine() -> Engine:
    """An engine configured from the environment (``verifier/config.py``), built on first use."""
    return Engine()


def verify(address: str, options: Options = DEFAULT_OPTIONS) -> ValidationResult:
    """Verify one address with the default engine."""
    return default_engine().verify(address, options)


def verify_many(addresses: Iterable[str], options: Options = DEFAULT_OPTIONS) -> list[ValidationResult]:
    """Verify many addresses with the default engine; see ``Engine.verify_many``."""
    return default_engine().verify_many(addresses, options)
