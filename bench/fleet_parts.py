"""The pieces of the fleet simulation: shared servers, the per-IP politeness state, lanes, jobs, sessions.

Each mirrors one piece of the service; the docstrings name it. None of them schedules events: the
processes of ``bench/fleet_model.py`` do, with the delays these pieces answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import simpy

from bench.fleet_world import Policy

# services/probing/fleet_engine.RedisSessionLimiter's polling of a full slot set
POLL_FIRST, POLL_MAX = 0.05, 0.25


@dataclass
class Counts:
    """What the run measured after the warm-up (``settled``: every result, from the start)."""

    addresses: int = 0
    consumer_addresses: int = 0  # at the providers' consumer domains (one lane each)
    sessions: int = 0
    refusals_421: int = 0
    messages: int = 0
    rounds: int = 0
    unknown: int = 0
    groups: int = 0  # groups settled, from the start
    settled_twice: int = 0  # groups settled again after their result was saved: must stay 0
    samples: int = 0
    busy_greenlets: float = 0.0
    consumer_lanes_held: float = 0.0
    provider_sessions: float = 0.0  # open sessions over SMTP_SESSIONS_PER_MX_HOST, mean of provider IPs
    provider_opened: int = 0  # new sessions to provider IPs


class Ledger:
    """Greenlet-seconds by what they waited on, after the warm-up, and the timeouts that spend them."""

    def __init__(self, env: simpy.Environment, warmup: float) -> None:
        self.env, self.warmup = env, warmup
        self.spent: dict[str, float] = {}

    def measuring(self) -> bool:
        return self.env.now >= self.warmup

    def wait(self, seconds: float, why: str) -> simpy.Timeout:
        self.spend(why, seconds)
        return self.env.timeout(seconds)

    def spend(self, why: str, seconds: float) -> None:
        if self.measuring():
            self.spent[why] = self.spent.get(why, 0.0) + seconds


class Server:
    """A single FIFO server doing ``rate`` units of work per second (Redis, Postgres, one worker's core).

    Work is booked at the moment it is asked for; the answer is the wait until it is done, queueing
    included. No event is scheduled: a caller adds the wait to its own next timeout, which keeps the
    event count per round small. Exact for a FIFO server; Postgres's parallel backends are folded into
    one faster server (its capacity), which is the fluid approximation of several."""

    def __init__(self, rate: float) -> None:
        self.rate, self.free_at, self.busy, self.units = rate, 0.0, 0.0, 0.0
        self.spent: dict[str, float] = {}  # units by what asked for them, over the whole run

    def ask(self, now: float, units: float, why: str = "other") -> float:
        service = units / self.rate
        self.free_at = max(now, self.free_at) + service
        self.busy += service
        self.units += units
        self.spent[why] = self.spent.get(why, 0.0) + units
        return self.free_at - now

    def busy_until(self, now: float) -> float:
        """Busy time booked so far, less what is booked past ``now``."""
        return self.busy - max(0.0, self.free_at - now)


@dataclass
class Session:
    """One SMTP session: what it carried (``verifier/smtp/keeper.KeptSession``)."""

    sent: int = 0
    rejected: int = 0
    idle_until: float = 0.0

    def has_room(self, policy: Policy) -> bool:
        return self.sent < policy.max_rcpt and self.rejected < policy.max_rejections


@dataclass
class MxIp:
    """Politeness state of one MX address (``services/probing/politeness``) and the connections it sees.

    ``open`` counts every connection from the fleet: sessions in use and sessions kept idle by a
    worker's keeper (they hold their limiter lease until closed), so the limiter's count and the
    server's count are the same number."""

    open: int = 0
    next_open: float = 0.0
    backoff_until: float = 0.0
    level: int = 0
    level_until: float = 0.0
    most_open: int = 0
    kept: dict[int, Session] = field(default_factory=dict)  # worker -> its idle session here

    def try_open(self, now: float, policy: Policy) -> float:
        """0 when a new session may open now (and it is counted), -1 when full, else seconds to wait."""
        if now < self.backoff_until:
            return self.backoff_until - now
        if self.open >= policy.per_host:
            return -1.0
        if now < self.next_open:
            return self.next_open - now
        self.next_open = now + policy.interval
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        return 0.0

    def back_off(self, now: float, policy: Policy) -> None:
        """politeness._BACK_OFF: doubling per complaint, forgotten after twice the longest backoff."""
        self.level = self.level + 1 if now < self.level_until else 1
        self.backoff_until = now + min(policy.backoff * 2 ** (self.level - 1), policy.backoff_max)
        self.level_until = now + 2 * policy.backoff_max

    def reap(self, now: float) -> int:
        """The keeper's reaper: idle sessions past their idle time close; how many did."""
        due = [worker for worker, session in self.kept.items() if session.idle_until <= now]
        for worker in due:
            del self.kept[worker]
        self.open -= len(due)
        return len(due)


@dataclass
class Group:
    """A domain group of one job (``models.jobs.JobGroup``): queued, then done exactly once."""

    job: Job
    domain: int
    size: int
    done: bool = False


@dataclass
class Job:
    """A bulk list or a small batch; ``window`` groups of it in lanes at once (``runs.fill_window``)."""

    account: int
    total: int
    created: float
    batch: bool
    pending: deque[Group] = field(default_factory=deque)
    planned: int = 0  # addresses put in groups so far (a big list is planned as it goes)
    in_flight: int = 0
    done: int = 0
    finished: float | None = None

    def planned_more(self) -> bool:
        """Groups still to send: planned and waiting, or not planned yet (a big list)."""
        return bool(self.pending) or self.planned < self.total


@dataclass
class Lane:
    """One domain's lane (``services/probing/lanes``): a queue per account, the ring of accounts, the bell."""

    domain: int
    queues: dict[int, deque[Group]] = field(default_factory=dict)
    ring: deque[int] = field(default_factory=deque)
    holders: int = 0
    messages: int = 0  # drain messages on their way (the holder key's ``sent``)
    rings: int = 0  # pushes waiting in the bell list, nobody blocked on it
    waiters: deque[simpy.Event] = field(default_factory=deque)  # holders blocked on the bell (BLPOP)

    def ring_bell(self) -> None:
        """A push to a held lane: the first holder blocked on the bell wakes, else the ring waits."""
        if self.waiters:
            self.waiters.popleft().succeed()
        else:
            self.rings += 1

    def push(self, group: Group) -> None:
        queue = self.queues.get(group.job.account)
        if queue is None:
            queue = self.queues[group.job.account] = deque()
            self.ring.append(group.job.account)
        queue.append(group)

    def pop_round(self, max_addresses: int) -> list[Group]:
        """lanes._POP: one ref per account in turn, until the round holds ``max_addresses``."""
        taken: list[Group] = []
        total = 0
        while total < max_addresses and self.ring:
            account = self.ring.popleft()
            queue = self.queues[account]
            group = queue.popleft()
            if queue:
                self.ring.append(account)
            else:
                del self.queues[account]
            taken.append(group)
            total += group.size
        return taken

    def waiting(self) -> bool:
        return bool(self.ring)


def pipeline(session: Session, addresses: int, policy: Policy, refused: Iterator[bool]) -> tuple[int, int]:
    """RCPTs of one session: (round trips, addresses sent). In flight at once: the refusals left
    (``SMTP_SESSION_MAX_REJECTIONS`` less those seen), so even all refused, the budget holds."""
    trips = sent = 0
    while sent < addresses and session.has_room(policy):
        if policy.pipelining:
            room = policy.max_rejections - session.rejected
            width = min(room, policy.max_rcpt - session.sent, addresses - sent)
        else:
            width = 1
        session.rejected += sum(next(refused) for _ in range(width))
        session.sent += width
        sent += width
        trips += 1
    return trips, sent
