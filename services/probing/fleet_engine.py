"""The engine's shared state across every web and worker process, in Redis: DNS answers, catch-all
verdicts and the per-MX-host session limit. The engine only knows the ``TtlCache`` and ``SessionLimiter``
protocols; these are their fleet-wide implementations.

Trade-offs accepted:

- The session limiter is a sorted set of leases per MX IP, scored by expiry (Redis ``TIME``, so worker
  clocks do not matter), with the spacing and backoff rules of ``services.probing.politeness``. A worker
  killed mid-session never releases its lease; the slot frees itself when the lease expires
  (``SMTP_DEADLINE`` plus a margin), so a crash costs one slot for a minute or so, never for ever. Waiting
  for a full slot set polls (50-250 ms): no pub/sub to clean up after a dead waiter; waiting out spacing
  or a backoff sleeps as long as Redis said.
- Catch-all verdicts are cached only when known (True/False); "could not tell" is asked again next time.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Sequence

from services.probing import politeness
from services.probing.dns_memo import DnsMemo
from services.probing.politeness import Politeness
from services.redis_client import get_redis, key
from settings import JobSettings, get_settings
from verifier.config import EngineConfig
from verifier.engine import Engine
from verifier.smtp import ReplyEvidence, SessionKeeper
from verifier.syntax import SyntaxPolicy

LEASE_MARGIN_SECONDS = 30
log = logging.getLogger(__name__)
POLL_FIRST, POLL_MAX = 0.05, 0.25


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
    """``SessionLimiter`` shared by every worker, with the rules of ``services.probing.politeness``:
    sessions at once, spacing between new ones, backoff from a server that complained."""

    def __init__(self, rules: Politeness) -> None:
        self.rules = rules

    def acquire(self, mx_host: str, timeout: float) -> str | None:
        give_up, pause = time.monotonic() + timeout, POLL_FIRST
        while True:
            token, wait = politeness.try_open(mx_host, self.rules)
            if token is not None:
                return token
            left = give_up - time.monotonic()
            if left <= 0 or wait > left:
                return None  # a backoff or spacing outlasting the timeout: waiting for it would be in vain
            # a spacing or backoff answer says how long; a full slot set is polled, doubling the pause
            time.sleep(min(wait or pause, left))
            pause = pause if wait else min(pause * 2, POLL_MAX)

    def release(self, mx_host: str, lease: str) -> None:
        politeness.close(mx_host, lease)

    def session_ended(self, mx_host: str, transcript: Sequence[ReplyEvidence]) -> None:
        """Back off from a server that answered 421 or slowly (``politeness.complaint``)."""
        reason = politeness.complaint(transcript, self.rules)
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


def politeness_rules(jobs: JobSettings, lease_seconds: float) -> Politeness:
    return Politeness(
        per_host=jobs.sessions_per_mx_host,
        lease_seconds=lease_seconds,
        interval_seconds=jobs.min_session_interval_ms / 1000,
        backoff_seconds=jobs.backoff_seconds,
        backoff_max_seconds=jobs.backoff_max_seconds,
        slow_reply_seconds=jobs.slow_reply_seconds,
    )


@functools.cache
def shared_engine() -> Engine:
    """The process's engine: configured from the environment, its caches and limits shared via Redis."""
    from verifier.dns import MailResolver  # noqa: PLC0415 - keeps the import graph of this module small

    config = EngineConfig.from_env()
    jobs = get_settings().jobs
    return Engine(
        config,
        resolver=MailResolver(config, RedisTtlCache("dns")),
        limiter=RedisSessionLimiter(politeness_rules(jobs, config.smtp_deadline + LEASE_MARGIN_SECONDS)),
        policy=SyntaxPolicy(test_domains=jobs.allow_test_domains),
        # sessions outlive their group for the next one of the same MX host (a lane's next round)
        keeper=SessionKeeper(config.smtp_session_idle),
    )
