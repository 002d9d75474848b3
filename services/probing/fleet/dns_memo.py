"""A per-process memo in front of the shared Redis DNS cache
(``services.probing.fleet.fleet_engine.RedisTtlCache``), and of the catch-all verdicts (``CatchAllCache``),
which follow the same rules.

Every quickMode validation asked Redis for its domain's answer: one round trip of three per request, for
an answer that changes once per DNS TTL. A process now keeps what Redis said for at most
``MEMO_SECONDS``, and never past the Redis entry's own expiry (its remaining TTL comes in the same round
trip), so a memoized answer is never older than the shared cache would serve. A miss in Redis is not
memoized: the resolver looks the domain up and stores it, and the next read memoizes it.
"""

from __future__ import annotations

from services.redis_client import get_redis
from verifier.dns.cache import MemoryCache

MEMO_SECONDS = 5
MEMO_ENTRIES = 10_000  # bounded: the oldest answers go first


class DnsMemo:
    """Redis reads of the DNS cache, memoized in this process."""

    def __init__(self) -> None:
        self._memo = MemoryCache(max_entries=MEMO_ENTRIES)

    def get(self, redis_key: str) -> str | None:
        if (value := self._memo.get(redis_key)) is not None:
            return value
        pipeline = get_redis().pipeline(transaction=False)
        pipeline.get(redis_key)
        pipeline.pttl(redis_key)
        found, left_ms = pipeline.execute()
        if found is None:
            return None
        # a key without expiry answers -1: memoized for the full MEMO_SECONDS; under a second left: not at all
        seconds = MEMO_SECONDS if left_ms < 0 else min(MEMO_SECONDS, left_ms // 1000)
        self._memo.set(redis_key, str(found), seconds)
        return str(found)
