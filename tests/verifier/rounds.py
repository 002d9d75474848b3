"""Probing a lane round's groups in turn, as ``services.probing.rounds.lane_runs`` does, for the engine's
tests."""

from __future__ import annotations

from verifier.config import EngineConfig
from verifier.dns import MailResolver
from verifier.smtp import (
    DomainProbeResult,
    LocalSessionLimiter,
    Relay,
    SessionKeeper,
    SmtpVerdict,
    probe_domain_group,
)


def probe_round(
    config: EngineConfig,
    groups: list[tuple[str, list[str]]],
    *,
    relay: bool = True,
    catch_all: bool = True,
    sessions: int = 3,
) -> list[DomainProbeResult]:
    """Each ``(domain, local parts)`` group probed in turn with one keeper, with a relay (the next groups'
    RCPTs sent ahead) or one by one, at most ``sessions`` at once per MX address."""
    keeper, limiter = SessionKeeper(idle_seconds=5.0), LocalSessionLimiter(sessions)
    resolver = MailResolver(config)
    rounds = [
        (resolver.resolve(domain), [f"{local}@{domain}" for local in locals_]) for domain, locals_ in groups
    ]
    passing = (
        Relay([(domain, addresses, catch_all) for domain, addresses in rounds], config) if relay else None
    )
    results = []
    for mail_domain, addresses in rounds:
        if passing is not None:
            passing.advance()
        results.append(
            probe_domain_group(
                mail_domain,
                addresses,
                config=config,
                limiter=limiter,
                keeper=keeper,
                check_catch_all=catch_all,
                relay=passing,
            )
        )
    if passing is not None:
        passing.finish(keeper)
    keeper.close_idle(everything=True)
    return results


def verdicts(result: DomainProbeResult) -> list[SmtpVerdict]:
    return [item.verdict for item in result.results]
