"""How long the bulk lists of a fleet simulation scenario take: the scenario run until they are done.

``bench/fleet_sim.py``'s tables are taken in the first minute, while the lists' windows still hold groups
of every kind. A list's windows fill up over time with the groups of its slowest MX addresses, so its
rate falls to theirs; its time to the end is what says how long a list takes. Same model, same
scenarios, same settings; every result counts, from the start.

Run: ``.venv/bin/python -m bench.fleet_lists --scenario hosted-heavy --workers 5``.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import time
from dataclasses import dataclass, replace

from bench.fleet_model import Fleet
from bench.fleet_sim import SCENARIOS
from bench.fleet_world import Policy, World
from settings import get_settings
from verifier.config import EngineConfig

SLICE = 60.0  # simulated seconds between looks at the lists
MOST = 86_400.0  # a run stops after a simulated day, lists done or not


@dataclass(frozen=True)
class ListRun:
    """One run to the end of its lists."""

    workers: int
    done_after: float  # seconds until the last list's last result (inf: not within the run)
    addresses_per_second: float  # of the lists, over that time
    sessions_per_thousand: float  # new SMTP sessions per 1,000 addresses settled, batches' included


def run_lists(world: World, policy: Policy, most: float = MOST) -> tuple[Fleet, ListRun]:
    """Simulate ``world`` until every bulk list is done, or for ``most`` seconds."""
    fleet = Fleet(replace(world, seconds=most, warmup=0.0), policy)
    fleet.run(until=SLICE)
    while not _lists_done(fleet) and fleet.env.now < most:
        fleet.env.run(until=min(most, fleet.env.now + SLICE))
    lists = [job for job in fleet.jobs if not job.batch]
    finished = [job.finished for job in lists]
    done_after = max(f for f in finished if f is not None) if _lists_done(fleet) else math.inf
    settled = sum(job.done for job in lists)
    run = ListRun(
        workers=world.workers,
        done_after=done_after,
        addresses_per_second=settled / min(done_after, fleet.env.now),
        sessions_per_thousand=1000 * fleet.counts.sessions / max(1, fleet.counts.addresses),
    )
    return fleet, run


def _lists_done(fleet: Fleet) -> bool:
    lists = [job for job in fleet.jobs if not job.batch]
    return len(lists) == fleet.world.lists and all(job.finished is not None for job in lists)


def table_row(run: ListRun) -> str:
    hours = "not within a day" if math.isinf(run.done_after) else f"{run.done_after / 3600:.2f} h"
    return f"| {run.workers} | {hours} | {run.addresses_per_second:,.0f} | {run.sessions_per_thousand:.1f} |"


HEADER = (
    "| workers | lists done after | addresses/s of the lists | sessions per 1,000 addresses |\n"
    "|---:|---:|---:|---:|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS], required=True)
    parser.add_argument("--workers", type=int, nargs="+", default=[5])
    parser.add_argument("--seed", type=int, default=World.seed)
    args = parser.parse_args()
    policy = Policy.read(get_settings(), EngineConfig.from_env())
    git = ["git", "rev-parse", "--short", "HEAD"]
    commit = subprocess.run(git, check=False, capture_output=True, text=True).stdout
    print(f"Commit {commit.strip()}. Each scenario run until its lists are done.\n")
    for scenario in SCENARIOS:
        if scenario.name not in args.scenario:
            continue
        world, changed = scenario.change(World(seed=args.seed), policy)
        print(f"### {scenario.title} (`{scenario.name}`)\n\n{HEADER}")
        started = time.process_time()
        for workers in args.workers:
            print(table_row(run_lists(replace(world, workers=workers), changed)[1]), flush=True)
        print(f"\n({time.process_time() - started:.1f} s of CPU)\n")


if __name__ == "__main__":
    main()
