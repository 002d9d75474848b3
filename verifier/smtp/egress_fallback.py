"""One domain group over an ordered list of egresses, so that a verdict never depends on which one asked.

The group is probed over the config's first egress (with the caller's keeper and relay, as before). The
addresses that egress could not settle, because the egress failed (``egress_fault``) or the server refused
it (``blocked``), are asked again over the next egress, on sessions of their own (a kept session left
over another egress), and so on down the list. What a later egress answers replaces the earlier mark;
an address every egress was refused for stays unknown, never invalid.

Each egress is given its own ``SMTP_DEADLINE``: a group that every egress failed took at most that times
the number of egresses.

The service's limiter chooses each session's egress itself (an ``EgressLease``): there each "next egress"
is one more ask of the unsettled addresses, over whichever egress the limiter finds open, the blocked or
failed one last.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from verifier.config import EngineConfig
from verifier.dns.model import MailDomain
from verifier.smtp.keeper import SessionKeeper
from verifier.smtp.limiter import SessionLimiter
from verifier.smtp.prober import probe_domain_group
from verifier.smtp.relay import Relay
from verifier.smtp.result import DomainProbeResult

log = logging.getLogger(__name__)


def probe_over_egresses(
    mail_domain: MailDomain,
    addresses: Iterable[str],
    *,
    config: EngineConfig,
    limiter: SessionLimiter | None = None,
    check_catch_all: bool = True,
    keeper: SessionKeeper | None = None,
    relay: Relay | None = None,
) -> DomainProbeResult:
    """``probe_domain_group`` over ``config.smtp_egress`` in order, each next egress asking only what the
    ones before it left unsettled."""
    first, *others = config.smtp_egress
    result = probe_domain_group(
        mail_domain,
        addresses,
        config=config.over(first),
        limiter=limiter,
        check_catch_all=check_catch_all,
        keeper=keeper,
        relay=relay,
    )
    for egress in others:
        unsettled = [probe.address for probe in result.results if probe.unsettled]
        if not unsettled:
            break
        log.info(
            "%s: %d address(es) unsettled over egress %s (%s), asking over %s",
            mail_domain.domain,
            len(unsettled),
            result.egress,
            _why(result),
            egress.id,
        )
        again = probe_domain_group(
            mail_domain,
            unsettled,
            config=config.over(egress),
            limiter=limiter,
            check_catch_all=check_catch_all and result.catch_all is None,
        )
        result = _merged(result, again)
    return result


def _merged(earlier: DomainProbeResult, later: DomainProbeResult) -> DomainProbeResult:
    """``earlier`` with what ``later`` asked again: its answers, its catch-all verdict where ``earlier``
    had none, both costs and transcripts; ``egress`` names the last one asked."""
    known = earlier.catch_all is not None
    return DomainProbeResult(
        domain=earlier.domain,
        provider=earlier.provider,
        results=tuple(later.get(probe.address) or probe for probe in earlier.results),
        catch_all=earlier.catch_all if known else later.catch_all,
        catch_all_probe=earlier.catch_all_probe if known else later.catch_all_probe,
        sessions_opened=earlier.sessions_opened + later.sessions_opened,
        unreachable=earlier.unreachable and later.unreachable,
        transcript=earlier.transcript + later.transcript,
        egress=later.egress,
    )


def _why(result: DomainProbeResult) -> str:
    """What kept the addresses unsettled, once per group (a block or a fault, not one line per address)."""
    return "blocked" if any(probe.blocked for probe in result.results) else "egress fault"
