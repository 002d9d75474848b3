"""The SMTP side of the fleet simulation: the engine's group prober with each worker's keeper and the
fleet-wide limiter (``services/probing/egress/limiter.RedisSessionLimiter``, whose rules and polling are the
service's own ``services/probing/policy`` functions), and the providers that answer 421 past their own
session limit."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import simpy

from bench import fleet_costs as cost
from bench.fleet_parts import Counts, Ledger, MxIp, Server, Session, pipeline
from bench.fleet_world import Catalog, Policy, World
from services.probing.fleet.policy import FULL, POLL_FIRST, next_look

Process = Generator[simpy.Event, Any, Any]


class Prober:
    """Sessions of every worker to every MX IP, opened through the limiter and kept by the keepers."""

    def __init__(
        self, ledger: Ledger, world: World, policy: Policy, catalog: Catalog, redis: Server, counts: Counts
    ) -> None:
        self.ledger, self.env, self.world, self.policy = ledger, ledger.env, world, policy
        self.catalog, self.redis, self.counts = catalog, redis, counts
        self.ips: dict[int, MxIp] = {}
        self.catch_all_known: set[int] = set()
        self._refused = self._refusals()

    def _refusals(self) -> Iterator[bool]:
        rng, share = self.catalog.rng, self.world.invalid_share
        while True:
            yield rng.random() < share

    def probe(self, worker: int, domain: int, addresses: int) -> Process:
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
            yield self.ledger.wait(trips * self.world.reply_latency, "SMTP replies")
            self._after(worker, mx, session)
        return 0

    def _after(self, worker: int, mx: MxIp, session: Session) -> None:
        """Keep a session with room (one idle per worker and MX), else QUIT and give its lease back."""
        if session.has_room(self.policy) and self.policy.idle_seconds > 0 and worker not in mx.kept:
            session.idle_until = self.env.now + self.policy.idle_seconds
            mx.kept[worker] = session
            return
        mx.open -= 1
        self.redis.ask(self.env.now, cost.REDIS_CLOSE, "politeness")

    def _open(self, worker: int, ip: int, mx: MxIp, deadline: float) -> Process:
        """RedisSessionLimiter.acquire with the keeper's close_idle_to; None when no slot frees in time
        (at the deadline, or at once for a wait that outlasts it, as ``policy.next_look`` says)."""
        pause = POLL_FIRST
        while True:
            now = self.env.now
            self.redis.ask(now, cost.REDIS_CLOSE * mx.reap(now), "politeness")
            backing_off = now < mx.backoff_until
            answer = mx.try_open(now, self.policy)
            wait = self.redis.ask(now, _look_cost(answer, backing_off), "politeness")
            if answer == 0:
                if self.ledger.measuring():
                    self.counts.sessions += 1
                    self.counts.provider_opened += self.catalog.is_provider_ip(ip)
                if self._refused_by_provider(ip, mx):
                    yield self.ledger.wait(wait + self.world.reply_latency, "SMTP replies")  # the 421 banner
                    continue
                yield self.ledger.wait(wait + 2 * self.world.reply_latency, "SMTP replies")  # banner, EHLO
                return Session()
            if answer == FULL and mx.kept.pop(worker, None) is not None:
                mx.open -= 1  # our own idle session to this IP gives its slot up
                continue
            sleep, pause = next_look(max(answer, 0.0), pause, deadline - now - wait)
            if sleep is None:
                yield self.ledger.wait(wait, "session slot (politeness)")
                return None
            yield self.ledger.wait(wait + sleep, "session slot (politeness)")

    def _refused_by_provider(self, ip: int, mx: MxIp) -> bool:
        """A provider answers 421 past its own session limit; the limiter backs off (politeness)."""
        if not self.catalog.is_provider_ip(ip) or mx.open <= self.world.provider_session_limit:
            return False
        mx.open -= 1
        mx.back_off(self.env.now, self.policy)
        self.redis.ask(self.env.now, cost.REDIS_BACK_OFF + cost.REDIS_CLOSE, "politeness")
        self.counts.refusals_421 += 1  # counted from the start: the first ones come in the warm-up
        return True


def _look_cost(answer: float, backing_off: bool) -> int:
    """Redis commands of one politeness._ACQUIRE, by where the script returned."""
    if answer == 0:
        return cost.REDIS_TRY_OPEN
    if answer == FULL:
        return cost.REDIS_TRY_FULL
    return cost.REDIS_TRY_BACKING_OFF if backing_off else cost.REDIS_TRY_SPACING
