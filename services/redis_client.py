"""The one Redis client of the service, and the one place that namespaces keys.

Every key goes through ``key()`` so it carries ``settings.redis_key_prefix``: several environments (and
concurrent test runs) share one Redis server, and a prefix is what keeps them from reading each other's
counters. The client is built once per process from settings; redis-py pools connections itself.
"""

from __future__ import annotations

from functools import lru_cache

import redis

from settings import get_settings


@lru_cache(maxsize=1)
def get_redis() -> redis.Redis:
    """The process-wide client (decoded strings in and out)."""
    return redis.Redis.from_url(get_settings().redis_url, decode_responses=True)


def key(*parts: str | int) -> str:
    """``key("rl", 42, "minute")`` -> ``"vm:rl:42:minute"`` with the configured prefix."""
    return get_settings().redis_key_prefix + ":".join(str(part) for part in parts)


def reset() -> None:
    """Forget the cached client (tests that change REDIS_URL call this after ``get_settings.cache_clear``)."""
    get_redis.cache_clear()
