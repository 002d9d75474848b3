"""The one Redis client of the service, and the one place that namespaces keys.

Every key goes through ``key()`` so it carries ``settings.redis_key_prefix``: several environments (and
concurrent test runs) share one Redis server, and a prefix is what keeps them from reading each other's
counters. The client is built once per process from settings; redis-py pools connections itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis
from redis.commands.core import Script

from settings import get_settings

POOL_WAIT = 5.0


@lru_cache(maxsize=1)
def get_redis() -> redis.Redis:
    """The process-wide client (decoded strings in and out). Past ``REDIS_MAX_CONNECTIONS`` a caller
    waits up to ``POOL_WAIT`` seconds for a free connection: a burst of greenlets queues instead of
    failing (redis-py's own pool raises at its default of 100)."""
    settings = get_settings()
    pool = redis.BlockingConnectionPool.from_url(
        settings.redis_url,
        max_connections=settings.redis_max_connections,
        timeout=POOL_WAIT,
        decode_responses=True,
    )
    return redis.Redis(connection_pool=pool)


def key(*parts: str | int) -> str:
    """``key("rl", 42, "minute")`` -> ``"vm:rl:42:minute"`` with the configured prefix."""
    return get_settings().redis_key_prefix + ":".join(str(part) for part in parts)


def script(source: str) -> Callable[..., Any]:
    """A Lua script bound to the current client, called as ``script(SOURCE)(keys=[...], args=[...])``.
    Registered once per process: redis-py's ``register_script`` hashes the source on every call, and
    the lanes and politeness scripts run several times per probed address."""
    return functools.partial(_registered(source), client=get_redis())


@functools.cache
def _registered(source: str) -> Script:
    return get_redis().register_script(source)


def reset() -> None:
    """Forget the cached client (tests that change REDIS_URL call this after ``get_settings.cache_clear``)."""
    get_redis.cache_clear()
