"""Throughput at one busy MX address with 1, 2 and 4 egresses: politeness per (egress, MX address).

The world: ``--domains`` lab domains (``bench_world(domains, servers=1)``) all behind ONE MX address, whose
server waits ``--latency`` seconds before every reply, so the politeness cap per address is the bound.
Each domain's ``--per-domain`` addresses are one group; every group is probed at once (threads, as the
gevent workers run them) with the service's own limiter (``services.probing.egress.limiter``, in this
run's Redis, ``--per-host`` sessions per pair, no spacing), its sessions leaving from loopback source
addresses (``direct://127.0.0.7x``). No keeper: every group opens its own session, so the number of
sessions at once is what the rules allow. The polite reference at the same number of egresses is the
same cap with every session busy from start to end: ``egresses x per_host`` sessions, each a group's
round trips (banner, EHLO, MAIL+RCPTs pipelined, QUIT).

Engine-level only: the path through ``POST /bulk/jobs`` (lanes, seats per live egress) is not measured here.

Run: ``.venv/bin/python -m bench.egress_pool`` (needs Redis on REDIS_URL; prints a Markdown table).
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import time
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("REDIS_KEY_PREFIX", f"vmbench_{secrets.token_hex(4)}:")

from maillab import MailLab
from maillab.world import bench_domain, bench_world
from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet.policy import Politeness
from verifier.dns import MailResolver
from verifier.egress import parse_egress
from verifier.smtp import SmtpVerdict, probe_domain_group

ROUND_TRIPS = 4  # banner, EHLO, MAIL FROM with the RCPTs pipelined, QUIT


def measure(lab: MailLab, egresses: int, args: argparse.Namespace) -> tuple[float, int, int]:
    """Seconds for every group, deliverable verdicts, sessions at once at the server (its peak)."""
    pool = tuple(parse_egress(f"direct://127.0.0.{70 + index}") for index in range(egresses))
    config = lab.engine_config(smtp_egress=pool, smtp_deadline=600.0, smtp_timeout=30.0)
    limiter = RedisSessionLimiter(Politeness(args.per_host, 60, 0, 30, 600, 60), pool)
    resolver = MailResolver(config)
    groups = [
        (
            resolver.resolve(bench_domain(i)),
            [f"user{j:02d}@{bench_domain(i)}" for j in range(args.per_domain)],
        )
        for i in range(args.domains)
    ]
    lab.servers["bench0"].reset()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(groups)) as threads:
        results = list(
            threads.map(
                lambda group: probe_domain_group(
                    group[0], group[1], config=config, limiter=limiter, check_catch_all=False
                ),
                groups,
            )
        )
    seconds = time.perf_counter() - started
    deliverable = sum(
        item.verdict is SmtpVerdict.DELIVERABLE for result in results for item in result.results
    )
    return seconds, deliverable, lab.servers["bench0"].peak_concurrent_sessions


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--domains", type=int, default=24)
    parser.add_argument("--per-domain", type=int, default=10)
    parser.add_argument("--per-host", type=int, default=2, help="sessions at once per (egress, MX address)")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds before every SMTP reply")
    args = parser.parse_args()
    total = args.domains * args.per_domain
    latency = f"{args.latency * 1000:.0f} ms per reply"
    print(f"{total} addresses, {args.domains} domains behind one MX address, {latency}")
    print(f"{args.per_host} sessions per (egress, MX address)\n")
    columns = ("egresses", "wall time (s)", "addresses/s", "vs 1 egress", "share of polite reference")
    print("| " + " | ".join((*columns, "peak sessions", "deliverable")) + " |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with MailLab(bench_world(args.domains, servers=1), latency=args.latency) as lab:
        base = 0.0
        for egresses in (1, 2, 4):
            seconds, deliverable, peak = measure(lab, egresses, args)
            rate = total / seconds
            base = base or rate
            sessions = egresses * args.per_host
            reference = math.ceil(args.domains / sessions) * ROUND_TRIPS * args.latency
            row = (
                egresses,
                f"{seconds:.2f}",
                f"{rate:.0f}",
                f"{rate / base:.2f}x",
                f"{reference / seconds:.2f}",
            )
            print("| " + " | ".join(map(str, (*row, peak, f"{deliverable}/{total}"))) + " |")


if __name__ == "__main__":
    main()
