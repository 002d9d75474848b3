"""The pieces of the fleet simulation: shared servers, the per-IP politeness state, lanes, jobs, sessions.

Each stands for one piece of the service; the docstrings name it. The rules they follow are the
service's own (``services.probing.policy``: admission, backoff, the turns of a lane's round), applied to
state kept here in memory where the service keeps it in Redis. None of them schedules events: the
processes of ``bench/fleet_model.py`` do, with the delays these pieces answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import simpy

from bench.fleet_world import Policy
from services.probing.policy import admission, backoff_memory, backoff_seconds, join_turns, take_round


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
    """Politeness state of one MX address (what ``services/probing/politeness`` keeps in Redis) and the
    connections it sees.

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
        """``policy.admission``: 0 when a new session may open now (and it is counted), ``FULL``, else
        seconds to wait."""
        answer = admission(now, self.open, self.next_open, self.backoff_until, policy.politeness)
        if answer == 0:
            self.next_open = now + policy.politeness.interval_seconds
            self.open += 1
            self.most_open = max(self.most_open, self.open)
        return answer

    def back_off(self, now: float, policy: Policy) -> None:
        """A complaint: the next backoff level (``policy.backoff_seconds``), or the first once the last
        is forgotten."""
        self.level = self.level + 1 if now < self.level_until else 1
        self.backoff_until = now + backoff_seconds(self.level, policy.politeness)
        self.level_until = now + backoff_memory(policy.politeness)

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
    """A bulk list or a small batch; ``window`` groups of it in lanes at once (``dispatch.fill_window``)."""

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


LaneKey = int | tuple[int, int]  # a domain, or (MX address, lane number): ``routes.lane_for``


@dataclass
class Lane:
    """One lane (``services/probing/lanes``): a queue per account, the turns of the accounts, the wake-up
    list. Keyed by one of its MX address's lanes, or (``Policy.lanes_by_mx`` off) by one domain."""

    key: LaneKey
    queues: dict[int, deque[Group]] = field(default_factory=dict)
    turns: deque[int] = field(default_factory=deque)
    owners: int = 0
    messages: int = 0  # drain messages on their way (the owner key's ``sent``)
    wakeups: int = 0  # wake-ups waiting in the list, nobody blocked on it
    waiters: deque[simpy.Event] = field(default_factory=deque)  # owners blocked on the list (BLPOP)

    def wake_owner(self) -> None:
        """A push to an owned lane: the first owner blocked on the wake-up list wakes, else it waits."""
        if self.waiters:
            self.waiters.popleft().succeed()
        else:
            self.wakeups += 1

    def push(self, group: Group) -> None:
        join_turns(self.turns, self.queues, group.job.account, group)

    def pop_round(self, max_addresses: int) -> list[Group]:
        """``policy.take_round``: one ref per account in turn, until the round holds ``max_addresses``."""
        return take_round(self.turns, self.queues, max_addresses, _size)

    def waiting(self) -> bool:
        return bool(self.turns)


def _size(group: Group) -> int:
    return group.size


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
