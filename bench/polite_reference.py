"""The polite reference: the best a prober can do under the service's own politeness policy.

In one process, no HTTP, database or Redis. Every MX address gets ``SMTP_SESSIONS_PER_MX_HOST`` probers
that take its domain groups (cut as the service plans a list: by domain, at most
``SMTP_MAX_RCPT_PER_SESSION`` addresses) from one queue, in list order, and probe them through the
engine's ``probe_domain_group``, pipelined, each prober with a keeper of its own: its session goes on from
one domain's group to the next domain's at the same address, in the open transaction, until the session's
recipient or refusal budget (``SMTP_MAX_RCPT_PER_SESSION``, ``SMTP_SESSION_MAX_REJECTIONS``) is spent.
Every new session asks ``PoliteLimiter``, which decides by ``services.probing.fleet.policy``: sessions at
once per MX address, spacing between new sessions to one address, backoff after a complaint. These are the
functions the service's Redis scripts are held to (``tests/probing/test_policy_in_redis.py``) and the
state is the fleet simulation's (``bench.fleet_parts.MxIp``), so the reference obeys the service's
policy, not a copy of it.

What it leaves out is what the service adds: HTTP, Postgres, Redis, lanes, turns, saves. The service's
rate as a fraction of this one is the cost of that machinery under the same politeness; one MX address's
queue cannot go faster than its 3 sessions, whatever the service does.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from bench.fleet_parts import MxIp
from bench.fleet_world import Policy
from services.probing.fleet.policy import POLL_FIRST, complaint, next_look
from verifier.config import EngineConfig
from verifier.dns import MailDomain
from verifier.smtp import DomainProbeResult, ReplyEvidence, SessionKeeper, probe_domain_group

Group = tuple[MailDomain, list[str]]


class PoliteLimiter:
    """A ``SessionLimiter`` and ``SessionObserver`` for one process, by the service's policy."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.addresses: dict[str, MxIp] = {}
        self._lock = threading.Lock()
        self._tokens = itertools.count()

    def acquire(self, mx_ip: str, timeout: float) -> str | None:
        """A lease as soon as ``policy.admission`` allows one, polling as the service does."""
        deadline, pause = time.monotonic() + timeout, POLL_FIRST
        while True:
            answer = self._try(mx_ip)
            if answer == 0:
                return str(next(self._tokens))
            sleep, pause = next_look(max(answer, 0.0), pause, deadline - time.monotonic())
            if sleep is None:
                return None
            time.sleep(sleep)

    def _try(self, mx_ip: str) -> float:
        with self._lock:
            address = self.addresses.setdefault(mx_ip, MxIp())
            return address.try_open(time.monotonic(), self.policy)

    def release(self, mx_ip: str, _lease: str) -> None:
        with self._lock:
            self.addresses[mx_ip].open -= 1

    def session_ended(self, mx_ip: str, transcript: Sequence[ReplyEvidence], _lease: str = "") -> None:
        if complaint(transcript, self.policy.politeness) is None:
            return
        with self._lock:
            self.addresses[mx_ip].back_off(time.monotonic(), self.policy)

    def backing_off(self, mx_ip: str) -> float:
        with self._lock:
            address = self.addresses.get(mx_ip)
            return max(0.0, address.backoff_until - time.monotonic()) if address else 0.0

    def most_open(self) -> int:
        """The most sessions any one MX address had open at once."""
        return max((address.most_open for address in self.addresses.values()), default=0)


def polite_probe(
    groups: Sequence[Group], config: EngineConfig, limiter: PoliteLimiter
) -> list[DomainProbeResult]:
    """Every group probed by the probers of its MX address (its first MX host's first address)."""
    queues: dict[str, deque[Group]] = {}
    for group in groups:
        queues.setdefault(group[0].mx_records[0].addresses[0], deque()).append(group)
    results: list[DomainProbeResult] = []

    def prober(queue: deque[Group]) -> None:
        keeper = SessionKeeper(config.smtp_session_idle)
        try:
            while queue:
                try:
                    domain, addresses = queue.popleft()
                except IndexError:
                    return  # another prober of this address took the last one
                results.append(
                    probe_domain_group(domain, addresses, config=config, limiter=limiter, keeper=keeper)
                )
        finally:
            keeper.close_idle(everything=True)

    per_host = limiter.policy.per_host
    probers = [queue for queue in queues.values() for _ in range(min(per_host, len(queue)))]
    with ThreadPoolExecutor(len(probers)) as pool:
        list(pool.map(prober, probers))
    return results
