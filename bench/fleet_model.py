"""The fleet's scheduling at scale as a discrete-event simulation (SimPy): what ``bench/fleet_sim.py`` runs.

One SimPy process per greenlet of every probes worker takes drain messages from one broker queue and
drains a seat of its lane as ``services/probing/lane_runs.drain`` does: the seat's ownership
(``lanes.take``; an MX address's lane has SMTP_SESSIONS_PER_MX_HOST seats, drained side by side from the
same queues), rounds of one ref per account in turn (``lanes.pop_round``, with the service's own
``policy.take_round``), on an empty lane a wait for a wake-up while a kept session stays warm, a turn of
``LANE_TURN_SECONDS``; each round's claim goes through the worker's claim coalescer (the round waits for
it), the probe on a kept or new session, the CPU, then the save goes to the worker's save coalescer and
the next round starts at once; the turn waits for its saves before it lets go. A save run settles the
groups of every round in it, refills the jobs' windows (``dispatch.fill_window``) and pushes the new
groups to their lanes, sending drain messages to as many free seats as the refs waiting can keep busy
and one wake-up per owner. Sessions go through the
service's politeness rules per MX IP (``MxIp``, ``services/probing/fleet/policy.py``) and the keeper of their
worker; a provider answers 421 to a session past its own limit.

Granularity, to keep 50,000 greenlets affordable: one timeout per phase (claim, probe per session,
CPU), never per SMTP command; the shared servers book their work without events (``Server``); the
invalid addresses of a round are drawn at random per RCPT. Not modelled: DNS (memoized), crashes and
lease expiry, greylisting, the sweeper, web requests other than the batches' submission.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Generator
from typing import Any

import simpy

from bench import fleet_costs as cost
from bench.fleet_parts import Counts, Group, Job, Lane, LaneKey, Ledger, Server
from bench.fleet_runs import Runs
from bench.fleet_smtp import Prober
from bench.fleet_world import Catalog, Policy, World

Process = Generator[simpy.Event, Any, Any]
SAMPLE_EVERY = 0.5  # seconds between looks at lanes, greenlets and sessions


class Fleet:
    """One simulated run of ``world`` under ``policy``."""

    def __init__(self, world: World, policy: Policy) -> None:
        self.world, self.policy = world, policy
        self.env = simpy.Environment()
        self.rng = random.Random(world.seed)
        self.catalog = Catalog(world, policy, self.rng)
        self.redis = Server(world.redis_ops_per_second)
        self.postgres = Server(world.postgres_writes_per_second)
        self.cores = [Server(1.0) for _ in range(world.workers)]
        self.claims = [
            self._runs(self._claim_run, cost.CLAIM_GATHER, cost.CLAIM_MOST, len) for _ in self.cores
        ]
        self.saves = [
            self._runs(self._save_run, cost.SAVE_GATHER, cost.SAVE_MOST, _addresses) for _ in self.cores
        ]
        self.memo: dict[tuple[int, int], float] = {}  # (worker, domain) -> end of its memoized cache reads
        self.broker: simpy.Store = simpy.Store(self.env)
        self.lanes: dict[LaneKey, Lane] = {}
        self.jobs: list[Job] = []
        self.counts = Counts()
        self.ledger = Ledger(self.env, world.warmup)
        self.spent = self.ledger.spent  # greenlet-seconds by what they waited on, after the warm-up
        self.prober = Prober(self.ledger, world, policy, self.catalog, self.redis, self.counts)
        self.ips = self.prober.ips
        self.busy = 0
        self.marks: dict[str, float] = {}

    # -- the run --------------------------------------------------------------------------------
    def run(self, until: float | None = None) -> None:
        # Greenlets wait for messages in turn across the workers, as the workers' blocked BRPOPs are
        # served in turn: the broker's first messages spread over the fleet instead of filling worker 0.
        for _ in range(self.world.greenlets):
            for worker in range(self.world.workers):
                self.env.process(self._greenlet(worker))
        for account in range(self.world.lists):
            self.env.process(self._submit_list(account))
        if self.world.batch_rate > 0:
            self.env.process(self._batches())
        self.env.process(self._sampler())
        self.env.run(until=self.world.seconds if until is None else until)

    def _runs(
        self, run: Callable[[list[list[Group]]], Process], gather: float, most: int, weight: Weight
    ) -> Runs[list[Group]]:
        return Runs(self.env, run, gather=gather, most=most, weight=weight)

    # -- work arriving --------------------------------------------------------------------------
    def _submit_list(self, account: int) -> Process:
        yield self.env.timeout(self.rng.uniform(0, 1))  # lists do not all start in one instant
        job = Job(account, self.world.list_size, self.env.now, batch=False)
        self.jobs.append(job)
        self._fill_window(job)

    def _batches(self) -> Process:
        account = self.world.lists
        while True:
            yield self.env.timeout(self.rng.expovariate(self.world.batch_rate))
            if self.env.now > self.world.batch_seconds:
                return
            account += 1
            self._submit_batch(account)

    def _submit_batch(self, account: int) -> None:
        job = Job(account, self.world.batch_size, self.env.now, batch=True)
        sizes: dict[int, int] = {}
        for _ in range(job.total):
            domain = self.catalog.address_domain()
            sizes[domain] = sizes.get(domain, 0) + 1
        job.pending.extend(Group(job, domain, size) for domain, size in sizes.items())
        job.planned = job.total
        rows = cost.PG_BATCH_ROWS_PER_ITEM * job.total + cost.PG_BATCH_ROWS_PER_GROUP * len(sizes)
        self.postgres.ask(self.env.now, cost.PG_BATCH_SUBMIT + cost.ROW_COST * rows, "batches")
        self.redis.ask(self.env.now, cost.REDIS_BATCH_SUBMIT, "batches")
        self.jobs.append(job)
        self._fill_window(job)

    def _next_groups(self, job: Job, room: int) -> list[Group]:
        groups = [job.pending.popleft() for _ in range(min(room, len(job.pending)))]
        while len(groups) < room and job.planned < job.total:  # a big list, planned as it goes
            domain, size = self.catalog.bulk_group()
            size = min(size, job.total - job.planned)
            job.planned += size
            groups.append(Group(job, domain, size))
        return groups

    def _fill_window(self, job: Job) -> float:
        """dispatch.fill_window, then one lanes.push for the job's new groups and their wake-ups; the Redis
        wait it cost."""
        groups = self._next_groups(job, self.policy.window - job.in_flight)
        if not groups:
            return 0.0
        job.in_flight += len(groups)
        pushed: dict[LaneKey, int] = {}
        for group in groups:
            key = self._lane_of(group)
            lane = self.lanes.get(key) or self.lanes.setdefault(key, Lane(key, self.policy.seats))
            lane.push(group)
            pushed[key] = pushed.get(key, 0) + 1
        units = cost.REDIS_PUSH + cost.REDIS_PUSH_PER_REF * len(groups)
        woken = []
        for key, refs in pushed.items():
            lane = self.lanes[key]
            units += cost.REDIS_PUSH_PER_LANE + cost.REDIS_PUSH_PER_SEAT * lane.seats
            if lane.seats > 1:
                units += cost.REDIS_PUSH_COUNT + cost.REDIS_PUSH_COUNT_PER_ACCOUNT * len(lane.turns)
            seats = lane.seats_to_wake()
            woken += [lane] * seats
            units += cost.REDIS_PUSH_WAKE * seats
            wakeups = lane.wake_owners(refs, self.env.now)
            units += cost.REDIS_PUSH_WAKEUP * wakeups + cost.REDIS_PUSH_WAKEUP_EXPIRE * (wakeups > 0)
        wait = self.redis.ask(self.env.now, units, "lanes: push")
        for lane in woken:
            wait = self._wake(lane)
        return wait

    def _lane_of(self, group: Group) -> LaneKey:
        """``routes.lane_for``: the lane of the group's MX address (``Policy.lanes_by_mx``), or with
        ``Policy.split_by_domain`` one of the address's SMTP_SESSIONS_PER_MX_HOST lanes by the CRC-32 of its
        domain (so one domain keeps one lane); else the group's domain."""
        if not self.policy.lanes_by_mx:
            return group.domain
        ip = self.catalog.ip_of(group.domain)
        if not self.policy.split_by_domain:
            return (ip, 0)
        return (ip, zlib.crc32(str(group.domain).encode()) % max(self.policy.per_host, 1))

    def _wake(self, lane: Lane) -> float:
        lane.messages += 1
        self.broker.put(lane.key)
        if self.ledger.measuring():
            self.counts.messages += 1
        return self.redis.ask(self.env.now, cost.REDIS_PER_MESSAGE, "broker")

    # -- a worker's greenlet: lane_runs.drain ---------------------------------------------------
    def _greenlet(self, worker: int) -> Process:
        while True:
            key = yield self.broker.get()
            lane = self.lanes[key]
            self.busy += 1
            yield from self._drain(worker, lane)
            self.busy -= 1

    def _drain(self, worker: int, lane: Lane) -> Process:
        wait = self.redis.ask(self.env.now, cost.REDIS_TAKE, "lanes: turn")
        if not lane.take():
            yield self.ledger.wait(wait, "Redis")
            return
        started = self.env.now
        saves: list[simpy.Event] = []
        while self.env.now < started + self.policy.lane_turn:
            groups = yield from self._next_round(lane, wait)
            if not groups:
                break
            saves.append((yield from self._round(worker, groups)))
            wait = 0.0
        since = self.env.now
        yield self.env.all_of(saves)  # the turn's saves, which ran while its next rounds did
        self.ledger.spend("save (Postgres)", self.env.now - since)
        wait = self.redis.ask(self.env.now, cost.REDIS_LET_GO, "lanes: turn")
        if lane.let_go():
            wait += self._wake(lane)
        yield self.ledger.wait(wait, "Redis")

    def _next_round(self, lane: Lane, wait: float) -> Process:
        """lane_runs._next_round: pop a round; on an empty lane, wait for a wake-up while a kept session
        stays warm (SMTP_SESSION_IDLE_SECONDS) and pop again when a push rang."""
        until = self.env.now + self.policy.idle_seconds
        while True:
            accounts = len(lane.turns)
            groups = lane.pop_round(self.policy.max_rcpt)
            units = cost.REDIS_POP + cost.REDIS_POP_PER_REF * len(groups)
            if lane.seats > 1:
                units += cost.REDIS_POP_COUNT + cost.REDIS_POP_COUNT_PER_ACCOUNT * accounts
            yield self.ledger.wait(wait + self.redis.ask(self.env.now, units, "lanes: rounds"), "Redis")
            wait = 0.0
            left = until - self.env.now
            if groups or left <= 0:
                return groups
            if not (yield from self._wait_for_push(lane, left)):
                return []

    def _wait_for_push(self, lane: Lane, seconds: float) -> Process:
        """lanes.wait_for_push: BLPOP on the wake-up list; True when a push woke us."""
        self.redis.ask(self.env.now, cost.REDIS_WAKEUP_WAIT, "lanes: wake-ups")
        if lane.stale_wakeup(self.env.now):
            return True
        wakeup, since = self.env.event(), self.env.now
        lane.waiters.append(wakeup)
        yield wakeup | self.env.timeout(seconds)
        self.ledger.spend("wake-up of an empty lane", self.env.now - since)
        if not wakeup.triggered:
            lane.waiters.remove(wakeup)
        return wakeup.triggered

    def _round(self, worker: int, groups: list[Group]) -> Process:
        """lane_runs._turn's round: the claim (coalesced), the probe, its CPU; the save is handed to the
        worker's saver and the next round starts at once. The save's event."""
        since = self.env.now
        yield self.claims[worker].submit(groups)
        self.ledger.spend("claim (Postgres)", self.env.now - since)
        if self.ledger.measuring():
            self.counts.rounds += 1
        sizes: dict[int, int] = {}  # a lane per MX address: several domains in a round, on one session
        for group in groups:
            sizes[group.domain] = sizes.get(group.domain, 0) + group.size
        unknown = 0
        for domain, addresses in sizes.items():
            yield self.ledger.wait(self._caches(worker, domain), "Redis")
            unknown += yield from self.prober.probe(worker, domain, addresses)
        if self.ledger.measuring():
            self.counts.unknown += unknown
        cpu = sum(
            group.size * (cost.CPU_PER_BATCH_ADDRESS if group.job.batch else cost.CPU_PER_BULK_ADDRESS)
            for group in groups
        )
        yield self.ledger.wait(self.cores[worker].ask(self.env.now, cpu, "probes"), "CPU")
        return self.saves[worker].submit(groups)

    def _caches(self, worker: int, domain: int) -> float:
        """The DNS answer and catch-all verdict of a round: from Redis once per MEMO_SECONDS per process."""
        if self.memo.get((worker, domain), 0.0) > self.env.now:
            return 0.0
        self.memo[(worker, domain)] = self.env.now + cost.MEMO_SECONDS
        units = cost.REDIS_CACHE_KEYS_PER_ROUND * cost.REDIS_CACHE_READ
        return self.redis.ask(self.env.now, units, "caches")

    # -- the worker's coalesced claims and saves (lane_runs.CLAIMS and SAVES) -----------------------
    def _claim_run(self, rounds: list[list[Group]]) -> Process:
        groups = sum(len(round_) for round_ in rounds)
        yield self.env.timeout(
            self.postgres.ask(self.env.now, cost.PG_CLAIM_RUN + cost.ROW_COST * groups, "claims")
        )

    def _save_run(self, rounds: list[list[Group]]) -> Process:
        """lane_runs.save_rounds: every round's groups in one transaction, the windows refilled in it,
        the refills pushed to their lanes after commit (by the saver, before its next run)."""
        groups = [group for round_ in rounds for group in round_]
        jobs = list({id(group.job): group.job for group in groups}.values())
        addresses = sum(group.size for group in groups)
        chunks = max(1, math.ceil(addresses / cost.SETTLE_CHUNK))
        units = cost.PG_SAVE_RUN + chunks - 1 + cost.ROW_COST * (addresses + len(groups) + len(jobs))
        for job in jobs:
            mine = [group for group in groups if group.job is job]
            if job.done + sum(group.size for group in mine) < job.total and job.planned_more():
                units += cost.PG_REFILL + cost.ROW_COST * len(mine)  # about as many as settled
        yield self.env.timeout(self.postgres.ask(self.env.now, units, "saves"))
        for group in groups:
            self._settle(group)
        wait = 0.0
        for job in jobs:
            if job.done < job.total:
                wait = max(wait, self._fill_window(job))
        yield self.env.timeout(wait)

    def _settle(self, group: Group) -> None:
        if group.done:
            self.counts.settled_twice += 1
            return
        group.done = True
        self.counts.groups += 1
        job = group.job
        job.done += group.size
        job.in_flight -= 1
        if self.ledger.measuring():
            self.counts.addresses += group.size
            if self.catalog.is_consumer(group.domain):
                self.counts.consumer_addresses += group.size
        if job.done >= job.total:
            job.finished = self.env.now

    # -- looking at the run ---------------------------------------------------------------------
    def _sampler(self) -> Process:
        consumer_lanes = self._consumer_lanes()
        while True:
            yield self.env.timeout(SAMPLE_EVERY)
            if self.env.now <= self.world.warmup:
                self.marks = self._busy_marks()
                continue
            self.counts.samples += 1
            self.counts.busy_greenlets += self.busy / (self.world.workers * self.world.greenlets)
            held = [self.lanes[key].owners if key in self.lanes else 0 for key in consumer_lanes]
            self.counts.consumer_lanes_held += sum(held) / max(1, len(held) * self.policy.seats)
            self.counts.provider_sessions += self._provider_sessions()

    def _consumer_lanes(self) -> list[LaneKey]:
        """The lanes the providers' consumer domains wait in: their own, or their MX addresses' (every
        one of an address's lanes split by domain)."""
        domains = range(self.world.providers)
        if not self.policy.lanes_by_mx:
            return list(domains)
        ips = dict.fromkeys(self.catalog.ip_of(domain) for domain in domains)
        parts = range(max(self.policy.per_host, 1)) if self.policy.split_by_domain else range(1)
        return [(ip, n) for ip in ips for n in parts]

    def _provider_sessions(self) -> float:
        ips = range(self.world.providers * self.world.ips_per_provider)
        open_now = [self.ips[ip].open if ip in self.ips else 0 for ip in ips]
        return sum(open_now) / max(1, len(open_now) * self.policy.address_rules.per_host)

    def _busy_marks(self) -> dict[str, float]:
        now = self.env.now
        marks = {"redis": self.redis.busy_until(now), "postgres": self.postgres.busy_until(now)}
        marks["cores"] = sum(core.busy_until(now) for core in self.cores)
        marks["redis units"], marks["postgres units"] = self.redis.units, self.postgres.units
        return marks


Weight = Callable[[list[Group]], int]


def _addresses(round_: list[Group]) -> int:
    return sum(group.size for group in round_)
