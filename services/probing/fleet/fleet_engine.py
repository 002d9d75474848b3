"""The engine's shared state across every web and worker process, in Redis: DNS answers, catch-all
verdicts and the per-MX-host session limit. The engine only knows the ``TtlCache`` and ``SessionLimiter``
protocols; these are their fleet-wide implementations.

Trade-offs accepted:

- The session limiter is a sorted set of leases per MX IP, scored by expiry (Redis ``TIME``, so worker
  clocks do not matter), with the spacing and backoff rules of ``services.probing.fleet.politeness``. A lease
  is a hold its process renews while the session lives (``services.probing.upkeep.holds``): a worker killed
  mid-session never releases it, and the slot frees itself within ``HOLD_SECONDS`` (at once when a live
  worker notices the death, ``services.probing.upkeep.liveness``), so a crash costs seconds of a slot. Waiting
  for a full slot set polls (50-250 ms, ``policy.next_look``): no pub/sub to clean up after a dead waiter;
  waiting out spacing or a backoff sleeps as long as Redis said.
- Catch-all verdicts are cached only when known (True/False); "could not tell" is asked again next time.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence

from services.lease_sets import set_key
from services.probing.fleet import policy, politeness
from services.probing.fleet.dns_memo import DnsMemo
from services.probing.fleet.policy import Politeness
from services.probing.upkeep.holds import HOLD_SECONDS, HOLDS
from services.redis_client import get_redis, key
from settings import get_settings
from verifier.config import EngineConfig
from verifier.engine import Engine
from verifier.smtp import ReplyEvidence, SessionKeeper
from verifier.syntax import SyntaxPolicy

log = logging.getLogger(__name__)


class RedisTtlCache:
    """``TtlCache`` on Redis: one entry per key with Redis's own expiry."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.memo = DnsMemo()  # reads memoized in this process for a few seconds (``dns_memo``)

    def get(self, name: str) -> str | None:
        return self.memo.get(key(self.namespace, name))

    def set(self, name: str, value: str, ttl_seconds: int) -> None:
        if ttl_seconds > 0:  # a zero TTL means "do not cache"
            get_redis().set(key(self.namespace, name), value, ex=ttl_seconds)


class RedisSessionLimiter:
    """``SessionLimiter`` shared by every worker, with the rules of ``services.probing.fleet.politeness``:
    sessions at once, spacing between new ones, backoff from a server that complained."""

    def __init__(self, rules: Politeness) -> None:
        self.rules = rules

    def acquire(self, mx_host: str, timeout: float) -> str | None:
        give_up, pause = time.monotonic() + timeout, policy.POLL_FIRST
        while True:
            token, wait = politeness.try_open(mx_host, self.rules)
            if token is not None:
                HOLDS.keep_member(set_key(politeness.SLOTS, mx_host), token)
                return token
            # a spacing or backoff answer says how long; a full slot set is polled, doubling the pause;
            # a wait outlasting the timeout would be in vain
            sleep, pause = policy.next_look(wait, pause, give_up - time.monotonic())
            if sleep is None:
                return None
            time.sleep(sleep)

    def release(self, mx_host: str, lease: str) -> None:
        HOLDS.drop_member(lease)
        politeness.close(mx_host, lease)

    def session_ended(self, mx_host: str, transcript: Sequence[ReplyEvidence]) -> None:
        """Back off from a server that answered 421 or slowly (``policy.complaint``)."""
        reason = policy.complaint(transcript, self.rules)
        if reason is not None:
            seconds = politeness.back_off(mx_host, self.rules)
            log.warning("backing off from %s for %.0f s: %s", mx_host, seconds, reason)

    def backing_off(self, mx_host: str) -> float:
        return politeness.backing_off(mx_host)

    def active(self, mx_host: str) -> int:
        """Leases currently held on ``mx_host`` (expired ones included until the next acquire drops them)."""
        return politeness.open_sessions(mx_host)


class CatchAllCache:
    """A domain's catch-all verdict, so a list with 5,000 addresses at one domain asks once; reads are
    memoized in the process like DNS answers (a lane of one-address groups would ask Redis per group)."""

    def __init__(self) -> None:
        self.memo = DnsMemo()

    def get(self, domain: str) -> bool | None:
        value = self.memo.get(key("catchall", domain))
        return None if value is None else value == "1"

    def remember(self, domain: str, verdict: bool | None) -> None:
        ttl = get_settings().jobs.catch_all_ttl
        if verdict is not None and ttl > 0:
            get_redis().set(key("catchall", domain), "1" if verdict else "0", ex=ttl)


@functools.cache
def shared_engine() -> Engine:
    """The process's engine: configured from the environment, its caches and limits shared via Redis."""
    from verifier.dns import MailResolver  # noqa: PLC0415 - keeps the import graph of this module small

    pool = EngineConfig.from_env()
    # The lanes, the limiter and the keeper count per MX address, not per (egress, MX address): every
    # session leaves over the first egress of SMTP_EGRESS, so none falls back to an uncounted one.
    config = pool.over(pool.egress)
    jobs = get_settings().jobs
    return Engine(
        config,
        resolver=MailResolver(config, RedisTtlCache("dns")),
        limiter=RedisSessionLimiter(Politeness.read(jobs, HOLD_SECONDS)),
        policy=SyntaxPolicy(test_domains=jobs.allow_test_domains),
        # sessions outlive their group for the next one of the same MX address (a lane's next group), as
        # many idle per address as the politeness cap lets be open (lanes of one address side by side)
        keeper=SessionKeeper(config.smtp_session_idle, jobs.sessions_per_mx_host),
    )
