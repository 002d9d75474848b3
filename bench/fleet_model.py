"""The fleet's scheduling at scale as a discrete-event simulation (SimPy): what ``bench/fleet_sim.py`` runs.

One SimPy process per greenlet of every probes worker takes drain messages from one broker queue and
drains the lane as ``services/jobs/lane_runs.drain`` does: the lane's lease, rounds of one ref per account
in turn (``lanes.pop_round``), the 0.3 s linger on an empty lane, a turn of ``LANE_TURN_SECONDS``, the
claim, the probe on a kept or new session, the save, the window refill that pushes the job's next
groups (``runs.fill_window``) and wakes their lanes. Sessions go through the politeness rules per MX IP
(``MxIp``) and the keeper of their worker; a provider answers 421 to a session past its own limit.

Granularity, to keep 10,000 greenlets affordable: one timeout per phase (claim, probe per session,
save), never per SMTP command; the shared servers book their work without events (``Server``); the
invalid addresses of a round are drawn at random per RCPT. Not modelled: DNS (memoized), crashes and
lease expiry, greylisting, the sweeper, web requests other than the batches' submission.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

import simpy

from bench import fleet_costs as cost
from bench.fleet_parts import POLL_FIRST, POLL_MAX, Group, Job, Lane, MxIp, Server, Session, pipeline
from bench.fleet_world import Catalog, Policy, World

Process = Generator[simpy.Event, Any, Any]
LINGER = (0.05, 0.1, 0.15, 0.0)  # services/jobs/lane_runs.LINGER
SAMPLE_EVERY = 0.5  # seconds between looks at lanes, greenlets and sessions


@dataclass
class Counts:
    """What the run measured after the warm-up (``settled``: every result, from the start)."""

    addresses: int = 0
    sessions: int = 0
    refusals_421: int = 0
    messages: int = 0
    unknown: int = 0
    groups: int = 0  # groups settled, from the start
    settled_twice: int = 0  # groups settled again after their result was saved: must stay 0
    samples: int = 0
    busy_greenlets: float = 0.0
    consumer_lanes_held: float = 0.0
    provider_sessions: float = 0.0  # open sessions over SMTP_SESSIONS_PER_MX_HOST, mean of provider IPs
    provider_opened: int = 0  # new sessions to provider IPs


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
        self.broker: simpy.Store = simpy.Store(self.env)
        self.lanes: dict[int, Lane] = {}
        self.ips: dict[int, MxIp] = {}
        self.jobs: list[Job] = []
        self.catch_all_known: set[int] = set()
        self.counts = Counts()
        self.busy = 0
        self.marks: dict[str, float] = {}
        self.spent: dict[str, float] = {}  # greenlet-seconds by what they waited on, after the warm-up
        self._refused = self._refusals()

    # -- the run --------------------------------------------------------------------------------
    def run(self, until: float | None = None) -> None:
        for worker in range(self.world.workers):
            for _ in range(self.world.greenlets):
                self.env.process(self._greenlet(worker))
        for account in range(self.world.lists):
            self.env.process(self._submit_list(account))
        if self.world.batch_rate > 0:
            self.env.process(self._batches())
        self.env.process(self._sampler())
        self.env.run(until=self.world.seconds if until is None else until)

    def measuring(self) -> bool:
        return self.env.now >= self.world.warmup

    def _wait(self, seconds: float, why: str) -> simpy.Timeout:
        if self.measuring():
            self.spent[why] = self.spent.get(why, 0.0) + seconds
        return self.env.timeout(seconds)

    def _refusals(self) -> Iterator[bool]:
        rng, share = self.rng, self.world.invalid_share
        while True:
            yield rng.random() < share

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
        rows = job.total + len(sizes)
        self.postgres.ask(self.env.now, cost.PG_BATCH_SUBMIT + cost.ROW_COST * rows)
        self.redis.ask(self.env.now, cost.REDIS_BATCH_SUBMIT)
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
        """runs.fill_window, then lanes.push and the wake-ups; the Redis wait it cost."""
        groups = self._next_groups(job, self.policy.window - job.in_flight)
        job.in_flight += len(groups)
        wait = 0.0
        for group in groups:
            lane = self.lanes.get(group.domain) or self.lanes.setdefault(group.domain, Lane(group.domain))
            lane.push(group)
            wait = self.redis.ask(self.env.now, cost.REDIS_PUSH + cost.REDIS_PUSH_PER_REF)
            if lane.holders + lane.messages < self.policy.lane_slots:
                wait = self._wake(lane)
        return wait

    def _wake(self, lane: Lane) -> float:
        lane.messages += 1
        self.broker.put(lane.domain)
        if self.measuring():
            self.counts.messages += 1
        return self.redis.ask(self.env.now, cost.REDIS_PER_MESSAGE)

    # -- a worker's greenlet: lane_runs.drain ---------------------------------------------------
    def _greenlet(self, worker: int) -> Process:
        while True:
            domain = yield self.broker.get()
            lane = self.lanes[domain]
            lane.messages -= 1
            self.busy += 1
            yield from self._drain(worker, lane)
            self.busy -= 1

    def _drain(self, worker: int, lane: Lane) -> Process:
        wait = self.redis.ask(self.env.now, cost.REDIS_TAKE)
        if lane.holders >= self.policy.lane_slots:
            yield self._wait(wait, "Redis")
            return
        lane.holders += 1
        ends = self.env.now + self.policy.lane_turn
        while self.env.now < ends:
            wait += self.redis.ask(self.env.now, cost.REDIS_KEEP)
            groups = yield from self._next_round(lane, wait)
            if not groups:
                break
            yield from self._round(worker, lane, groups)
            wait = 0.0
        lane.holders -= 1
        wait = self.redis.ask(self.env.now, cost.REDIS_TURN_END)
        if lane.waiting() and lane.holders + lane.messages < self.policy.lane_slots:
            wait += self._wake(lane)
        yield self._wait(wait, "Redis")

    def _next_round(self, lane: Lane, wait: float) -> Process:
        for pause in LINGER:
            groups = lane.pop_round(self.policy.max_rcpt)
            wait += self.redis.ask(self.env.now, cost.REDIS_POP + cost.REDIS_POP_PER_REF * len(groups))
            if groups:
                yield self._wait(wait, "Redis")
                return groups
            yield self._wait(wait, "Redis")
            yield self._wait(pause, "linger on an empty lane")
            wait = 0.0
        return []

    def _round(self, worker: int, lane: Lane, groups: list[Group]) -> Process:
        """lane_runs.run_round: claim, probe, CPU, save in one transaction, refill the windows."""
        now = self.env.now
        claim = self.postgres.ask(now, cost.PG_CLAIM + cost.ROW_COST * len(groups))
        caches = self.redis.ask(now, cost.REDIS_ROUND_CACHES)
        yield self._wait(claim + caches, "claim (Postgres)")
        addresses = sum(group.size for group in groups)
        unknown = yield from self._probe(worker, lane.domain, addresses)
        yield self._wait(self._save(worker, groups, unknown), "save (CPU, Postgres)")

    def _save(self, worker: int, groups: list[Group], unknown: int) -> float:
        now = self.env.now
        cpu = sum(
            group.size * (cost.CPU_PER_BATCH_ADDRESS if group.job.batch else cost.CPU_PER_BULK_ADDRESS)
            for group in groups
        )
        jobs = {id(group.job): group.job for group in groups}.values()
        addresses = sum(group.size for group in groups)
        units = cost.PG_SAVE + cost.ROW_COST * (addresses + len(groups) + len(jobs))
        units += (cost.PG_WAKE_CHECK + cost.PG_REFILL) * len(jobs)
        wait = self.cores[worker].ask(now, cpu) + self.postgres.ask(now, units)
        for group in groups:
            self._settle(group)
        if self.measuring():
            self.counts.unknown += unknown
        for job in jobs:
            if job.done < job.total:
                wait = max(wait, self._fill_window(job))
        return wait

    def _settle(self, group: Group) -> None:
        if group.done:
            self.counts.settled_twice += 1
            return
        group.done = True
        self.counts.groups += 1
        job = group.job
        job.done += group.size
        job.in_flight -= 1
        if self.measuring():
            self.counts.addresses += group.size
        if job.done >= job.total:
            job.finished = self.env.now

    # -- SMTP: the engine's group prober with the keeper and the limiter ------------------------
    def _probe(self, worker: int, domain: int, addresses: int) -> Process:
        """Probe ``addresses`` of ``domain``; how many ended unknown (no session before the deadline)."""
        ip = self.catalog.ip_of(domain)
        mx = self.ips.get(ip) or self.ips.setdefault(ip, MxIp())
        deadline, left = self.env.now + self.policy.deadline, addresses
        while left > 0:
            session = mx.kept.pop(worker, None)
            if session is None or session.idle_until <= self.env.now:
                if session is not None:
                    mx.open -= 1  # it idled out before we came back
                session = yield from self._open(worker, ip, mx, deadline)
                if session is None:
                    return left
            trips, sent = pipeline(session, left, self.policy, self._refused)
            left -= sent
            if left == 0 and domain not in self.catch_all_known:
                self.catch_all_known.add(domain)  # the random-address RCPT, refused; cached for 6 h
                session.sent, session.rejected, trips = session.sent + 1, session.rejected + 1, trips + 1
            yield self._wait(trips * self.world.reply_latency, "SMTP replies")
            self._after(worker, mx, session)
        return 0

    def _after(self, worker: int, mx: MxIp, session: Session) -> None:
        """Keep a session with room (one idle per worker and MX), else QUIT and give its lease back."""
        if session.has_room(self.policy) and self.policy.idle_seconds > 0 and worker not in mx.kept:
            session.idle_until = self.env.now + self.policy.idle_seconds
            mx.kept[worker] = session
            return
        mx.open -= 1
        self.redis.ask(self.env.now, cost.REDIS_CLOSE)

    def _open(self, worker: int, ip: int, mx: MxIp, deadline: float) -> Process:
        """RedisSessionLimiter.acquire with the keeper's close_idle_to; None past the deadline."""
        pause = POLL_FIRST
        while True:
            now = self.env.now
            self.redis.ask(now, cost.REDIS_CLOSE * mx.reap(now))
            wait = self.redis.ask(now, cost.REDIS_TRY_OPEN)
            answer = mx.try_open(now, self.policy)
            if answer == 0:
                if self.measuring():
                    self.counts.sessions += 1
                    self.counts.provider_opened += self.catalog.is_provider_ip(ip)
                if self._refused_by_provider(ip, mx):
                    yield self._wait(wait + self.world.reply_latency, "SMTP replies")  # the 421 banner
                    continue
                yield self._wait(wait + 2 * self.world.reply_latency, "SMTP replies")  # banner, EHLO
                return Session()
            if answer < 0 and mx.kept.pop(worker, None) is not None:
                mx.open -= 1  # our own idle session to this IP gives its slot up
                continue
            sleep = pause if answer < 0 else answer
            pause = min(pause * 2, POLL_MAX) if answer < 0 else pause
            if now + wait + sleep >= deadline:
                yield self._wait(max(0.0, deadline - now), "session slot (politeness)")
                return None
            yield self._wait(wait + sleep, "session slot (politeness)")

    def _refused_by_provider(self, ip: int, mx: MxIp) -> bool:
        """A provider answers 421 past its own session limit; the limiter backs off (politeness)."""
        if not self.catalog.is_provider_ip(ip) or mx.open <= self.world.provider_session_limit:
            return False
        mx.open -= 1
        mx.back_off(self.env.now, self.policy)
        self.redis.ask(self.env.now, cost.REDIS_BACK_OFF + cost.REDIS_CLOSE)
        self.counts.refusals_421 += 1  # counted from the start: the first ones come in the warm-up
        return True

    # -- looking at the run ---------------------------------------------------------------------
    def _sampler(self) -> Process:
        consumer_lanes = range(self.world.providers)
        while True:
            yield self.env.timeout(SAMPLE_EVERY)
            if self.env.now <= self.world.warmup:
                self.marks = self._busy_marks()
                continue
            self.counts.samples += 1
            self.counts.busy_greenlets += self.busy / (self.world.workers * self.world.greenlets)
            held = [self.lanes[d].holders if d in self.lanes else 0 for d in consumer_lanes]
            self.counts.consumer_lanes_held += sum(held) / max(1, len(held) * self.policy.lane_slots)
            self.counts.provider_sessions += self._provider_sessions()

    def _provider_sessions(self) -> float:
        ips = range(self.world.providers * self.world.ips_per_provider)
        open_now = [self.ips[ip].open if ip in self.ips else 0 for ip in ips]
        return sum(open_now) / max(1, len(open_now) * self.policy.per_host)

    def _busy_marks(self) -> dict[str, float]:
        now = self.env.now
        marks = {"redis": self.redis.busy_until(now), "postgres": self.postgres.busy_until(now)}
        marks["cores"] = sum(core.busy_until(now) for core in self.cores)
        return marks
