"""The engine's shared state across every web and worker process, in Redis: DNS answers, catch-all
verdicts and the session limit per (egress, MX address) (``services.probing.egress.limiter``). The engine
only knows the ``TtlCache`` and ``SessionLimiter`` protocols; these are their fleet-wide implementations.

DNS answers and catch-all verdicts are kept per name and per domain, never per egress: a verdict does not
depend on which egress asked. Trade-off accepted: catch-all verdicts are cached only when known
(True/False); "could not tell" is asked again next time.
"""

from __future__ import annotations

import functools

from services.probing.egress.limiter import RedisSessionLimiter
from services.probing.fleet.dns_memo import DnsMemo
from services.probing.fleet.policy import Politeness
from services.probing.upkeep.holds import HOLD_SECONDS
from services.redis_client import get_redis, key
from settings import get_settings
from verifier.config import EngineConfig
from verifier.engine import Engine
from verifier.smtp import SessionKeeper
from verifier.syntax import SyntaxPolicy


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
    # The limiter picks each session's egress among the pool's (its lease names it) and counts politeness
    # per pair; the engine asks what a block or an egress fault left unsettled again, up to once per
    # other egress (``probe_over_egresses``), and the limiter then avoids the pair that failed.
    config = pool
    egresses = pool.smtp_egress
    jobs = get_settings().jobs
    return Engine(
        config,
        resolver=MailResolver(config, RedisTtlCache("dns")),
        limiter=RedisSessionLimiter(Politeness.read(jobs, HOLD_SECONDS), egresses),
        policy=SyntaxPolicy(test_domains=jobs.allow_test_domains),
        # sessions outlive their group for the next one of the same MX address (a lane's next group), as
        # many idle per address as the politeness cap lets be open over our egresses (lanes side by side)
        keeper=SessionKeeper(config.smtp_session_idle, jobs.sessions_per_mx_host * len(egresses)),
    )
