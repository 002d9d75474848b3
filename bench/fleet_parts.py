"""The pieces of the fleet simulation: shared servers, the per-IP politeness state, lanes, jobs, sessions.

Each stands for one piece of the service; the docstrings name it. The rules they follow are the
service's own (``services.probing.fleet.policy``: admission, backoff, the turns of a lane's round), applied to
state kept here in memory where the service keeps it in Redis. None of them schedules events: the
processes of ``bench/fleet_model.py`` do, with the delays these pieces answer.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

import simpy

from bench.fleet_world import Policy
from services.probing.fleet.policy import admission, backoff_memory, backoff_seconds, join_turns, take_round


@dataclass
class Counts:
    """What the run measured after the warm-up (``settled``: every result, from the start)."""

    addresses: int = 0
    consumer_addresses: int = 0  # at the providers' consumer domains (one domain each, like gmail.com)
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
        answer = admission(now, self.open, self.next_open, self.backoff_until, policy.address_rules)
        if answer == 0:
            self.next_open = now + policy.address_rules.interval_seconds
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


# A domain, or (MX address, lane number): ``routes.lane_for``. An address has one lane, number 0, but
# with ``Policy.split_by_domain``, where the number is the domain's CRC-32 share.
LaneKey = int | tuple[int, int]
WAKEUP_TTL = 60.0  # seconds the wake-up list outlives the last push to it (lanes._PUSH: EXPIRE 60)


@dataclass
class Lane:
    """One lane (``services/probing/lanes``): a queue per account, the turns of the accounts, the wake-up
    list, and how many of its ``seats`` are owned or have a drain message on its way. Keyed by its MX
    address or (``Policy.lanes_by_mx`` off) by one domain."""

    key: LaneKey
    seats: int = 1
    queues: dict[int, deque[Group]] = field(default_factory=dict)
    turns: deque[int] = field(default_factory=deque)
    refs: int = 0  # groups waiting, every account's (the LLENs of lanes._PUSH)
    owners: int = 0  # seats owned by a drain
    messages: int = 0  # seats with a drain message on its way (the seat owner key's ``sent``)
    wakeups: int = 0  # wake-ups waiting in the list, nobody blocked on it
    wakeups_until: float = 0.0  # when the list expires, WAKEUP_TTL after the last push to it
    waiters: deque[simpy.Event] = field(default_factory=deque)  # owners blocked on the list (BLPOP)

    def seats_to_wake(self) -> int:
        """lanes._PUSH: free seats that get a drain message, so that seats owned or on their way number
        as many as the refs waiting can keep busy (at least one), up to the lane's seats."""
        wanted = self.refs if self.seats > 1 else 1
        return max(0, min(wanted, self.seats) - self.owners - self.messages)

    def take(self) -> bool:
        """lanes._TAKE by a drain message's receiver: the seat is ours unless every seat is owned. The
        wake-up list stays: another seat's owner may be blocked on it, so a wake-up left from before costs
        this owner one empty pop instead."""
        self.messages -= 1
        if self.owners >= self.seats:
            return False
        self.owners += 1
        return True

    def let_go(self) -> bool:
        """lanes._LET_GO: the seat is given up; True when refs still wait and it needs a drain message
        (the caller sends it)."""
        self.owners -= 1
        return self.waiting()

    def wake_owners(self, pushed: int, now: float) -> int:
        """lanes._PUSH on a lane with owners: one wake-up per owner, up to the refs pushed; the first
        owners blocked on the list take theirs at once, the rest wait in it (a take leaves them, so a
        later owner finding the lane empty spends one empty pop on each). How many were pushed."""
        if now >= self.wakeups_until:
            self.wakeups = 0  # the list expired
        count = min(self.owners, max(pushed, 1)) if self.owners else 0
        for _ in range(count):
            if self.waiters:
                self.waiters.popleft().succeed()
            else:
                self.wakeups += 1
        if count:
            self.wakeups_until = now + WAKEUP_TTL
        return count

    def stale_wakeup(self, now: float) -> bool:
        """A BLPOP that finds a wake-up already in the list (taking it)."""
        if now >= self.wakeups_until:
            self.wakeups = 0
        if not self.wakeups:
            return False
        self.wakeups -= 1
        return True

    def push(self, group: Group) -> None:
        join_turns(self.turns, self.queues, group.job.account, group)
        self.refs += 1

    def pop_round(self, max_addresses: int) -> list[Group]:
        """``policy.take_round``: one ref per account in turn, until the round holds ``max_addresses``; in
        a lane of several seats, at most a seat's share of the refs waiting (``lanes._POP``), so small
        groups go to the seats side by side instead of one after another on one session."""
        most = math.ceil(self.refs / self.seats) if self.seats > 1 else math.inf
        counted = 0

        def size(group: Group) -> int:
            # take_round stops once a round is full: the ref that makes the share counts as filling it
            nonlocal counted
            counted += 1
            return group.size if counted < most else max_addresses

        taken = take_round(self.turns, self.queues, max_addresses, size)
        self.refs -= len(taken)
        return taken

    def waiting(self) -> bool:
        return bool(self.turns)


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
