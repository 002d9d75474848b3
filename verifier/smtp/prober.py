"""``probe_domain_group``: verify every address of one domain over as few SMTP sessions as possible.

This is the unit a Celery task runs: inputs and the result are plain data (``DomainProbeResult`` has
``to_dict``/``from_dict``), every wait is bounded by ``SMTP_DEADLINE``, and nothing after RCPT is ever
sent. The catch-all probe (one random local part) is read after the real recipients, on the same session
unless the provider penalises unknown recipients per connection, and only when it can change a verdict:
if a real address was rejected the domain is provably not catch-all; if none was accepted (or found
full) there is no acceptance to discount. Where it may, its RCPT was already sent with the real ones
(``catch_all.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from verifier.config import EngineConfig
from verifier.dns.model import DomainStatus, MailDomain
from verifier.smtp.classify import Classification, ProbeOutcome
from verifier.smtp.group import GroupRun
from verifier.smtp.keeper import SessionKeeper
from verifier.smtp.limiter import SessionLimiter
from verifier.smtp.providers import ProviderRules, rules_for
from verifier.smtp.relay import Relay
from verifier.smtp.result import AddressProbe, DomainProbeResult, judge


def probe_domain_group(
    mail_domain: MailDomain,
    addresses: Iterable[str],
    *,
    config: EngineConfig,
    limiter: SessionLimiter | None = None,
    check_catch_all: bool = True,
    keeper: SessionKeeper | None = None,
    relay: Relay | None = None,
) -> DomainProbeResult:
    """Probe ``addresses`` (all of ``mail_domain``) and return one ``AddressProbe`` per distinct address.

    Addresses keep their spelling in the result; the RCPT uses their local part at the domain's ASCII
    name. A domain that does not accept mail (or whose DNS is unknown) is not contacted at all. With a
    ``keeper``, sessions outlive the group for the next group of the same MX host (``keeper.py``); with
    a ``relay``, the group is one of a round's, and its session goes on to the next one (``relay.py``).
    """
    unique = list(dict.fromkeys(addresses))
    rules = rules_for([record.host for record in mail_domain.mx_records])
    if not mail_domain.accepts_mail:
        return _not_contacted(mail_domain, unique, rules)
    run = GroupRun(mail_domain, config, limiter, rules, keeper, relay=relay, catch_all=check_catch_all)
    try:
        run.probe_all(unique)
        catch_all, probe = _catch_all(run) if check_catch_all else (None, None)
        run.drop_catch_all()
    finally:
        run.close()
    return DomainProbeResult(
        domain=mail_domain.domain,
        provider=rules.provider.value,
        results=tuple(run.results[address] for address in unique),
        catch_all=catch_all,
        catch_all_probe=probe,
        sessions_opened=run.sessions_opened,
        unreachable=run.unreachable,
        transcript=tuple(item for session in run.sessions for item in session.transcript)
        + tuple(run.local_evidence),
        egress=run.egress_id,
    )


# A mailbox shown to exist: accepted, or full (452/552). Either makes the random address worth asking,
# so a domain whose only answer was a full mailbox still learns whether it takes any address.
_EXISTS = frozenset({ProbeOutcome.ACCEPTED, ProbeOutcome.FULL})


def _catch_all(run: GroupRun) -> tuple[bool | None, AddressProbe | None]:
    outcomes = {result.outcome for result in run.results.values()}
    if run.rules.accepts_all_at_rcpt or not outcomes & _EXISTS:
        return (False if ProbeOutcome.REJECTED_MAILBOX in outcomes else None), None
    if ProbeOutcome.REJECTED_MAILBOX in outcomes:
        return False, None  # a real unknown recipient was refused: the server does check mailboxes
    probe = _probe_random(run)
    if probe is None:
        return None, None
    verdicts = {ProbeOutcome.ACCEPTED: True, ProbeOutcome.REJECTED_MAILBOX: False}
    return verdicts.get(probe.outcome), probe


def _probe_random(run: GroupRun) -> AddressProbe | None:
    """RCPT a random local part; on "too many recipients" once more on a fresh connection."""
    address = run.catch_all_address
    for fresh in (run.rules.catch_all_own_session, True):
        if run.catch_all_session(fresh=fresh) is None:
            return None
        found, evidence = run.rcpt(address)
        if run.misrouted:
            run.set_aside()  # refused as another domain's session: asked again on one of the domain's own
            continue
        if not found.too_many_recipients:
            return judge(address, found, evidence, run.rules)
        run.close_current()
    return None


def _not_contacted(domain: MailDomain, addresses: list[str], rules: ProviderRules) -> DomainProbeResult:
    reason = "dns_unknown" if domain.status is DomainStatus.UNKNOWN else "domain_accepts_no_mail"
    return _not_asked(domain, addresses, rules, reason)


def not_probed(mail_domain: MailDomain, addresses: Iterable[str], reason: str) -> DomainProbeResult:
    """The group as a probe that asked nothing, each address unknown for ``reason`` (our own fault,
    ``faults.INTERNAL_ERROR``): no verdict, and no transcript to read as the server's silence."""
    unique = list(dict.fromkeys(addresses))
    rules = rules_for([record.host for record in mail_domain.mx_records])
    return _not_asked(mail_domain, unique, rules, reason)


def _not_asked(
    domain: MailDomain, addresses: list[str], rules: ProviderRules, reason: str
) -> DomainProbeResult:
    found = Classification(ProbeOutcome.NOT_SENT, reason)
    return DomainProbeResult(
        domain=domain.domain,
        provider=rules.provider.value,
        results=tuple(judge(address, found, None, rules) for address in addresses),
        catch_all=None,
        catch_all_probe=None,
        sessions_opened=0,
        unreachable=False,
    )
