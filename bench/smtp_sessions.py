"""SMTP cost of verifying a list: our grouped prober against a naive one-session-per-address prober.

Both run in the same process against the same mail lab, whose servers wait ``--latency`` seconds
(default 0.1) before every reply, as a distant MTA would. The list is ``--domains`` lab domains with
``--per-domain`` existing mailboxes each (default 10 x 10 = 100 addresses).

- naive: one address at a time, each on its own connection (banner, EHLO, MAIL, RCPT, QUIT), no
  catch-all probe (generous to the baseline: a real one would add a session per address);
- grouped, lock-step, sequential: ``probe_domain_group`` once per domain, one domain after another,
  with RFC 2920 pipelining switched off (``SMTP_PIPELINING=false``): one round trip per command;
- grouped, sequential: the same with pipelining (the default; the lab advertises PIPELINING), MAIL FROM
  and the session's RCPTs in one write;
- grouped, concurrent: the same, domains in parallel threads (as the gevent workers run them),
  with a per-MX-host limiter of 2.

Run: ``.venv/bin/python -m bench.smtp_sessions`` (prints a Markdown table and the ratios).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from maillab import MailLab
from maillab.world import bench_domain, bench_world
from verifier.config import EngineConfig
from verifier.dns import MailDomain, MailResolver
from verifier.smtp import DomainProbeResult, LocalSessionLimiter, SmtpVerdict, probe_domain_group


@dataclass(frozen=True)
class Run:
    name: str
    sessions: int
    seconds: float
    deliverable: int


def _lists(domains: list[MailDomain], per_domain: int) -> list[tuple[MailDomain, list[str]]]:
    return [(domain, [f"user{j:02d}@{domain.domain}" for j in range(per_domain)]) for domain in domains]


def _measure(name: str, work: Callable[[], list[DomainProbeResult]]) -> Run:
    started = time.perf_counter()
    results = work()
    seconds = time.perf_counter() - started
    deliverable = sum(
        item.verdict is SmtpVerdict.DELIVERABLE for result in results for item in result.results
    )
    return Run(name, sum(result.sessions_opened for result in results), seconds, deliverable)


def naive(groups: list[tuple[MailDomain, list[str]]], config: EngineConfig) -> list[DomainProbeResult]:
    return [
        probe_domain_group(domain, [address], config=config, check_catch_all=False)
        for domain, addresses in groups
        for address in addresses
    ]


def grouped(groups: list[tuple[MailDomain, list[str]]], config: EngineConfig) -> list[DomainProbeResult]:
    return [probe_domain_group(domain, addresses, config=config) for domain, addresses in groups]


def grouped_lock_step(
    groups: list[tuple[MailDomain, list[str]]], config: EngineConfig
) -> list[DomainProbeResult]:
    return grouped(groups, replace(config, smtp_pipelining=False))


def grouped_concurrent(
    groups: list[tuple[MailDomain, list[str]]], config: EngineConfig
) -> list[DomainProbeResult]:
    limiter = LocalSessionLimiter(per_host=2)
    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        return list(
            pool.map(lambda g: probe_domain_group(g[0], g[1], config=config, limiter=limiter), groups)
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--domains", type=int, default=10)
    parser.add_argument("--per-domain", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before every SMTP reply")
    args = parser.parse_args()
    with MailLab(bench_world(args.domains), latency=args.latency) as lab:
        config = lab.engine_config(smtp_deadline=120.0)
        resolver = MailResolver(config)
        groups = _lists([resolver.resolve(bench_domain(i)) for i in range(args.domains)], args.per_domain)
        runs = [
            _measure("naive: one session per address, sequential", lambda: naive(groups, config)),
            _measure(
                "grouped, lock-step: one session per domain, sequential",
                lambda: grouped_lock_step(groups, config),
            ),
            _measure(
                "grouped, pipelined: one session per domain, sequential", lambda: grouped(groups, config)
            ),
            _measure(
                "grouped, pipelined: one session per domain, concurrent",
                lambda: grouped_concurrent(groups, config),
            ),
        ]
    _report(runs, args)


def _report(runs: list[Run], args: argparse.Namespace) -> None:
    total = args.domains * args.per_domain
    print(f"{total} addresses over {args.domains} lab domains, {args.latency * 1000:.0f} ms per SMTP reply\n")
    print("| prober | sessions opened | wall time (s) | deliverable |")
    print("|---|---:|---:|---:|")
    for run in runs:
        print(f"| {run.name} | {run.sessions} | {run.seconds:.2f} | {run.deliverable}/{total} |")
    base = runs[0]
    for run in runs[1:]:
        print(
            f"\n{run.name}: {base.sessions / run.sessions:.1f}x fewer sessions, "
            f"{base.seconds / run.seconds:.1f}x faster than the naive prober"
        )


if __name__ == "__main__":
    main()
