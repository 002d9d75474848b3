"""Where the fleet stops scaling: a discrete-event simulation of the scheduling policy at scale.

What one machine cannot show (50 workers, 100,000 domains, providers that allow 5 sessions per MX IP),
simulated with the service's own policy (``settings.get_settings()`` and the engine's
``EngineConfig.from_env()``: the same environment variables move it) and the unit costs measured in
docs/benchmarks.md (``bench/fleet_costs.py``). The model is ``bench/fleet_model.py``; its limits are
written there and in docs/throughput.md.

For each scenario, a sweep over the number of probes workers (gevent, 500 greenlets each), one Markdown
table: addresses settled per second, the most sessions any provider MX IP saw at once, 421s received,
utilisation of Redis, Postgres, the workers' cores, the greenlets and the providers' consumer-domain
lanes, the resource that saturated first, the latency of the small batches of other accounts, and the
Redis commands and Postgres writes per address (with, under each table, what the Redis commands were for).

Run: ``.venv/bin/python -m bench.fleet_sim`` (all scenarios) or ``--scenario defaults --workers 1 50``.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bench.fleet_model import Fleet
from bench.fleet_world import Policy, World
from settings import get_settings
from verifier.config import EngineConfig

SATURATED = 0.9  # a resource busy this share of the time is the one that stops the scaling
# Every one saturated is named; greenlets only when no server or provider limit is.
RESOURCES = ("Redis", "Postgres", "worker CPU", "provider IPs", "consumer-domain lanes", "greenlets")
WORKERS = (1, 5, 10, 25, 50, 100)


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    change: Callable[[World, Policy], tuple[World, Policy]]


# A hosted-provider-heavy list: 90% of addresses at 5 providers, most of them (80%) at the providers'
# hosted domains (Workspace and 365 customers, 20,000 per provider), one list of 10 million and a batch
# of 10 from another account every second beside it.
def hosted_heavy(world: World) -> World:
    return replace(
        world,
        domains=150_000,
        provider_share=0.9,
        consumer_share=0.2,
        hosted_per_provider=20_000,
        lists=1,
        list_size=10_000_000,
        batch_rate=1.0,
        batch_size=10,
        seconds=60.0,
        warmup=20.0,
    )


def prober_ips(count: int, window: int | None = None) -> Callable[[World, Policy], tuple[World, Policy]]:
    """``count`` prober (egress) IP addresses, the limiter keyed by (egress IP, MX address) as built
    (``Policy.egresses``: each MX address takes the rules of every egress, ``policy.pooled``, and its lane
    as many more seats, ``policy.seats``), and a provider allows its limit per egress IP; ``window``:
    JOB_WINDOW, if another."""

    def change(world: World, policy: Policy) -> tuple[World, Policy]:
        limit = world.provider_session_limit * count
        changed = replace(policy, egresses=count, window=window or policy.window)
        return replace(hosted_heavy(world), provider_session_limit=limit), changed

    return change


SCENARIOS = (
    Scenario("defaults", "The policy as configured", lambda w, p: (w, p)),
    Scenario(
        "domain-lanes",
        "Lanes per domain, for comparison: the domains behind one MX address take turns on its sessions",
        lambda w, p: (w, replace(p, lanes_by_mx=False)),
    ),
    Scenario(
        "crc-split",
        "Each MX address as lanes of one seat, a domain's by its CRC-32, for comparison: one domain on "
        "one session at a time",
        lambda w, p: (w, replace(p, split_by_domain=True)),
    ),
    Scenario(
        "one-list",
        "One bulk list and a small batch of another account every second (fairness)",
        lambda w, p: (replace(w, lists=1, batch_rate=1.0, seconds=w.warmup + 80), p),
    ),
    Scenario(
        "redis-half",
        "Redis at half the capacity (50,000 simple ops/s)",
        lambda w, p: (replace(w, redis_ops_per_second=w.redis_ops_per_second / 2), p),
    ),
    Scenario(
        "per-host-above-provider",
        "SMTP_SESSIONS_PER_MX_HOST=8, above the providers' limit of 5",
        lambda w, p: (w, p.with_per_host(8)),
    ),
    Scenario(
        "hosted-heavy",
        "A hosted-provider-heavy list of 10 million addresses, one prober IP",
        lambda w, p: (hosted_heavy(w), p),
    ),
    Scenario(
        "hosted-heavy-domain-lanes",
        "The same list with lanes per domain, for comparison",
        lambda w, p: (hosted_heavy(w), replace(p, lanes_by_mx=False)),
    ),
    Scenario(
        "hosted-heavy-crc-split",
        "The same list, each MX address as lanes of one seat, a domain's by its CRC-32, for comparison",
        lambda w, p: (hosted_heavy(w), replace(p, split_by_domain=True)),
    ),
    Scenario("hosted-heavy-window", "The same list, JOB_WINDOW=1000", prober_ips(1, window=1000)),
    Scenario(
        "hosted-heavy-ips-2-window",
        "The same list from 2 prober IPs , JOB_WINDOW=1000",
        prober_ips(2, window=1000),
    ),
    Scenario("hosted-heavy-ips-4", "The same list from 4 prober IPs", prober_ips(4)),
    Scenario(
        "hosted-heavy-ips-4-window",
        "The same list from 4 prober IPs, JOB_WINDOW=1000",
        prober_ips(4, window=1000),
    ),
)


@dataclass(frozen=True)
class Row:
    """One run's figures (shares are 0..1)."""

    workers: int
    addresses_per_second: float
    consumer_per_second: float  # of them, at the providers' consumer domains
    provider_ip_sessions: int
    refusals_421: int
    messages_per_second: float
    busy: dict[str, float]
    waiting_on: str
    batch_p50: float
    batch_p99: float
    batches: int
    settled_twice: int
    grace: float
    redis_per_address: float
    postgres_per_address: float
    sessions_per_thousand: float  # new SMTP sessions per 1,000 addresses settled
    redis_uses: dict[str, float]  # share of Redis commands by use, over the whole run

    @property
    def saturated(self) -> str:
        names = [name for name in RESOURCES[:-1] if self.busy[name] >= SATURATED]
        if not names and self.busy["greenlets"] >= SATURATED:
            names = ["greenlets"]
        return ", ".join(names) or "none"


def simulate(world: World, policy: Policy) -> tuple[Fleet, Row]:
    fleet = Fleet(world, policy)
    fleet.run()
    return fleet, measure(fleet)


def measure(fleet: Fleet) -> Row:
    world, counts, now = fleet.world, fleet.counts, fleet.env.now
    span = now - world.warmup
    samples = max(1, counts.samples)
    cores = sum(core.busy_until(now) for core in fleet.cores) - fleet.marks.get("cores", 0.0)
    busy = {
        "Redis": (fleet.redis.busy_until(now) - fleet.marks.get("redis", 0.0)) / span,
        "Postgres": (fleet.postgres.busy_until(now) - fleet.marks.get("postgres", 0.0)) / span,
        "worker CPU": cores / (span * world.workers),
        "greenlets": counts.busy_greenlets / samples,
        "consumer-domain lanes": counts.consumer_lanes_held / samples,
        "provider IPs": max(counts.provider_sessions / samples, _spacing_used(fleet, span)),
    }
    p50, p99, batches = batch_latency(fleet)
    addresses = max(1, counts.addresses)
    provider_ips = [mx.most_open for ip, mx in fleet.ips.items() if fleet.catalog.is_provider_ip(ip)]
    return Row(
        workers=world.workers,
        addresses_per_second=counts.addresses / span,
        consumer_per_second=counts.consumer_addresses / span,
        provider_ip_sessions=max(provider_ips, default=0),
        refusals_421=counts.refusals_421,
        messages_per_second=counts.messages / span,
        busy=busy,
        waiting_on=max(fleet.spent.items(), key=lambda item: item[1], default=("-", 0.0))[0],
        batch_p50=p50,
        batch_p99=p99,
        batches=batches,
        settled_twice=counts.settled_twice,
        grace=grace(world),
        redis_per_address=(fleet.redis.units - fleet.marks.get("redis units", 0.0)) / addresses,
        postgres_per_address=(fleet.postgres.units - fleet.marks.get("postgres units", 0.0)) / addresses,
        sessions_per_thousand=1000 * counts.sessions / addresses,
        redis_uses={use: units / max(1.0, fleet.redis.units) for use, units in fleet.redis.spent.items()},
    )


def _spacing_used(fleet: Fleet, span: float) -> float:
    """New sessions to provider IPs over what SMTP_MIN_SESSION_INTERVAL_MS allows them."""
    interval = fleet.policy.politeness.interval_seconds
    if interval <= 0:
        return 0.0
    ips = fleet.world.providers * fleet.world.ips_per_provider
    return fleet.counts.provider_opened / max(1.0, ips * span / interval)


def batch_latency(fleet: Fleet) -> tuple[float, float, int]:
    """p50 and p99 of the batches submitted in the first half of the measured time, so each had at
    least the second half to finish; one unfinished counts as later than any (printed "> half")."""
    end = fleet.env.now - grace(fleet.world)
    batches = [job for job in fleet.jobs if job.batch and fleet.world.warmup <= job.created <= end]
    waits = sorted(math.inf if job.finished is None else job.finished - job.created for job in batches)
    if not waits:
        return math.nan, math.nan, 0
    return _quantile(waits, 0.5), _quantile(waits, 0.99), len(waits)


def grace(world: World) -> float:
    return (world.seconds - world.warmup) / 2


def _quantile(values: Sequence[float], share: float) -> float:
    return values[min(len(values) - 1, math.ceil(share * len(values)) - 1)]


# -- output ------------------------------------------------------------------------------------------
HEADER = (
    "| workers | addresses/s (at consumer domains) | max sessions per provider IP | 421s | broker msgs/s "
    "| Redis | Postgres "
    "| worker CPU | provider IPs | consumer lanes | saturated | greenlets mostly wait on "
    "| small batches p50 / p99 | Redis cmds / Postgres writes per address | sessions per 1,000 addresses |\n"
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|"
)


def table_row(row: Row) -> str:
    b = row.busy
    shares = " | ".join(f"{b[name]:.0%}" for name in RESOURCES[:-1])
    waited = max(row.grace, row.batch_p50 if math.isfinite(row.batch_p50) else 0.0)
    latency = f"{_seconds(row.batch_p50, row.grace)} / {_seconds(row.batch_p99, waited)}"
    return (
        f"| {row.workers} | {row.addresses_per_second:,.0f} ({row.consumer_per_second:,.0f}) | "
        f"{row.provider_ip_sessions} | "
        f"{row.refusals_421:,} | {row.messages_per_second:,.0f} | {shares} | {row.saturated} | "
        f"{row.waiting_on} | {latency} | {row.redis_per_address:.1f} / {row.postgres_per_address:.2f} | "
        f"{row.sessions_per_thousand:.1f} |"
    )


def redis_uses(row: Row) -> str:
    uses = sorted(row.redis_uses.items(), key=lambda item: -item[1])
    return f"Redis by use at {row.workers} workers: " + ", ".join(f"{use} {share:.0%}" for use, share in uses)


def _seconds(value: float, waited: float) -> str:
    if math.isnan(value):
        return "-"
    return f"> {waited:.0f} s" if math.isinf(value) else f"{value:.1f} s"


def describe(world: World, policy: Policy) -> str:
    return (
        f"Policy: {policy}.\n\nWorld: {world.greenlets} greenlets per worker, {world.domains:,} domains, "
        f"{world.providers} providers x {world.ips_per_provider} MX IPs (421 past "
        f"{world.provider_session_limit} sessions), {world.provider_share:.0%} of addresses at providers, "
        f"{world.invalid_share:.0%} refused, replies after {world.reply_latency * 1000:.0f} ms, Redis "
        f"{world.redis_ops_per_second:,.0f} ops/s, Postgres {world.postgres_writes_per_second:,.0f} "
        f"writes/s, {world.lists} bulk lists in flight, {world.batch_rate:g} batches of "
        f"{world.batch_size}/s; {world.seconds:g} s simulated, figures after {world.warmup:g} s."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS])
    parser.add_argument("--workers", type=int, nargs="+", default=list(WORKERS))
    parser.add_argument("--seconds", type=float, default=World.seconds)
    parser.add_argument("--warmup", type=float, default=World.warmup)
    parser.add_argument("--seed", type=int, default=World.seed)
    args = parser.parse_args()
    policy = Policy.read(get_settings(), EngineConfig.from_env())
    base = World(seconds=args.seconds, warmup=args.warmup, seed=args.seed)
    git = ["git", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(git, check=False, capture_output=True, text=True).stdout
    print(f"Commit {commit.strip()}. {describe(base, policy)}\n")
    for scenario in SCENARIOS:
        if args.scenario and scenario.name not in args.scenario:
            continue
        world, changed = scenario.change(base, policy)
        print(f"### {scenario.title} (`{scenario.name}`)\n\n{HEADER}")
        started = time.process_time()
        rows = []
        for workers in args.workers:
            rows.append(simulate(replace(world, workers=workers), changed)[1])
            print(table_row(rows[-1]), flush=True)
        print(f"\n{redis_uses(rows[-1])}.\n\n({time.process_time() - started:.1f} s of CPU)\n")


if __name__ == "__main__":
    main()
