"""The simulated world of ``bench/fleet_sim.py``: the policy read from the settings, the fleet's size, the
mail domains and their MX addresses, and the work (bulk lists and small batches) that arrives.

Domains are numbered: the providers' own consumer domains first (one each, like gmail.com), then the
domains each provider hosts (like Google Workspace customers: their MX is the provider's), then the long
tail, one MX address per domain. A provider's domains reach its ``ips_per_provider`` MX addresses, each
domain always the same one (the engine tries the most preferred MX first; DNS answers rotating between
resolvers spread the fleet over the provider's addresses).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from services.probing.fleet import policy as rules
from services.probing.fleet.policy import Politeness
from services.probing.upkeep.holds import HOLD_SECONDS
from settings import Settings
from verifier.config import EngineConfig


@dataclass(frozen=True)
class Policy:
    """The scheduling and politeness rules, as the service reads them."""

    max_rcpt: int  # SMTP_MAX_RCPT_PER_SESSION
    max_rejections: int  # SMTP_SESSION_MAX_REJECTIONS
    pipelining: bool  # SMTP_PIPELINING
    idle_seconds: float  # SMTP_SESSION_IDLE_SECONDS
    deadline: float  # SMTP_DEADLINE
    politeness: Politeness  # the service's own rules per MX address (services/probing/fleet/policy.py)
    lane_turn: float  # LANE_TURN_SECONDS
    window: int  # JOB_WINDOW
    # One lane per MX address (``services/probing/routes.lane_for``), every domain behind the address in
    # it, drained from SMTP_SESSIONS_PER_MX_HOST seats at once (``routes.seats_for``); False: one lane
    # per domain, with one seat, the design compared against
    lanes_by_mx: bool = True
    # For comparison: an address's sessions as SMTP_SESSIONS_PER_MX_HOST lanes of one seat each, a
    # domain's groups always in the same one (by the CRC-32 of its name), so a domain is probed on one
    # session at a time
    split_by_domain: bool = False
    # SMTP_EGRESS entries over the fleet: politeness counts per (egress, MX address), so an address takes
    # the rules of every egress together (``policy.pooled``) and its lane that many more seats
    egresses: int = 1

    @classmethod
    def read(cls, settings: Settings, engine: EngineConfig) -> Policy:
        jobs = settings.jobs
        return cls(
            max_rcpt=engine.smtp_max_rcpt_per_session,
            max_rejections=engine.smtp_session_max_rejections,
            pipelining=engine.smtp_pipelining,
            idle_seconds=engine.smtp_session_idle,
            deadline=engine.smtp_deadline,
            politeness=Politeness.read(jobs, HOLD_SECONDS),
            lane_turn=jobs.lane_turn,
            window=jobs.window,
        )

    @property
    def per_host(self) -> int:
        """SMTP_SESSIONS_PER_MX_HOST."""
        return self.politeness.per_host

    @property
    def seats(self) -> int:
        """Drains at once of one lane: an MX address's sessions over every egress (``routes.seats_for``,
        ``policy.seats``), else one."""
        return (
            rules.seats(self.per_host, self.egresses) if self.lanes_by_mx and not self.split_by_domain else 1
        )

    @property
    def address_rules(self) -> Politeness:
        """One MX address's politeness over every egress (``policy.pooled``; one ``MxIp`` stands for the
        address's pairs, so a complaint backs off all of them: the simulation errs slow)."""
        return rules.pooled(self.politeness, self.egresses)

    def with_per_host(self, per_host: int) -> Policy:
        """This policy with another SMTP_SESSIONS_PER_MX_HOST."""
        return replace(self, politeness=replace(self.politeness, per_host=per_host))


@dataclass(frozen=True)
class World:
    """Everything the policy does not say: the fleet, the servers, the mail domains, the load."""

    workers: int = 50
    greenlets: int = 500  # the probes worker's gevent pool (Procfile: PROBE_CONCURRENCY, default 500)
    domains: int = 100_000
    providers: int = 5
    ips_per_provider: int = 5
    provider_session_limit: int = 5  # a provider answers 421 to the session past this many on one MX IP
    hosted_per_provider: int = 1_000
    provider_share: float = 0.8  # of addresses
    consumer_share: float = 0.5  # of a provider's addresses, at its own consumer domain
    invalid_share: float = 0.2  # of addresses: refused RCPTs, which spend a session's refusal budget
    reply_latency: float = 0.1  # seconds from an SMTP command to its reply
    redis_ops_per_second: float = 100_000
    postgres_writes_per_second: float = 20_000
    lists: int = 200  # bulk lists in flight at once, one account each
    list_size: int = 1_000_000
    batch_rate: float = 2.0  # small batches (other accounts) arriving per second, Poisson
    batch_size: int = 100
    batch_seconds: float = math.inf  # batches arrive this long, then stop (so a finite run can finish)
    seconds: float = 30.0  # simulated; figures are taken after the warm-up
    warmup: float = 10.0
    seed: int = 1

    @property
    def tail_domains(self) -> int:
        return self.domains - self.providers * (1 + self.hosted_per_provider)


class Catalog:
    """Domain numbers, their MX address and kind, and sampling of addresses and bulk groups."""

    def __init__(self, world: World, policy: Policy, rng: random.Random) -> None:
        self.world, self.rng, self.max_rcpt = world, rng, policy.max_rcpt
        self.hosted_start = world.providers
        self.tail_start = world.providers * (1 + world.hosted_per_provider)
        w = world
        consumer = w.provider_share * w.consumer_share
        hosted = w.provider_share - consumer
        tail = 1 - w.provider_share
        self.sizes = (
            float(policy.max_rcpt),  # a big list's consumer-domain groups are full
            self._clamp(w.list_size * hosted / max(1, w.providers * w.hosted_per_provider)),
            self._clamp(w.list_size * tail / max(1, w.tail_domains)),
        )
        # bulk groups are drawn per class in proportion to the groups each class makes
        weights = [share / size for share, size in zip((consumer, hosted, tail), self.sizes, strict=True)]
        self.group_weights = [weight / sum(weights) for weight in weights]

    def _clamp(self, expected: float) -> float:
        return min(float(self.max_rcpt), max(1.0, expected))

    def ip_of(self, domain: int) -> int:
        """MX address number: providers' addresses first, then one per long-tail domain."""
        w = self.world
        if domain < self.hosted_start:
            return domain * w.ips_per_provider + domain % w.ips_per_provider
        if domain < self.tail_start:
            number, provider = divmod(domain - self.hosted_start, w.providers)
            return provider * w.ips_per_provider + number % w.ips_per_provider
        return w.providers * w.ips_per_provider + domain

    def is_provider_ip(self, ip: int) -> bool:
        return ip < self.world.providers * self.world.ips_per_provider

    def is_consumer(self, domain: int) -> bool:
        return domain < self.hosted_start

    def address_domain(self) -> int:
        """The domain of one address of a small batch."""
        w, r = self.world, self.rng
        if r.random() >= w.provider_share or w.providers == 0:
            return self.tail_start + r.randrange(w.tail_domains)
        provider = r.randrange(w.providers)
        if r.random() < w.consumer_share or w.hosted_per_provider == 0:
            return provider
        return self.hosted_start + r.randrange(w.hosted_per_provider) * w.providers + provider

    def bulk_group(self) -> tuple[int, int]:
        """(domain, addresses) of a big list's next group."""
        w, r = self.world, self.rng
        kind = r.choices((0, 1, 2), self.group_weights)[0]
        if kind == 0:
            domain = r.randrange(w.providers)
        elif kind == 1:
            domain = self.hosted_start + r.randrange(w.providers * w.hosted_per_provider)
        else:
            domain = self.tail_start + r.randrange(w.tail_domains)
        mean = self.sizes[kind]
        size = int(mean) + (r.random() < mean - int(mean))
        return domain, max(1, size)
