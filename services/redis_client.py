"""The one Redis client of the service, and the one place that namespaces keys.

Every key goes through ``key()`` so it carries ``settings.redis_key_prefix``: several environments (and
concurrent test runs) share one Redis server, and a prefix is what keeps them from reading each other's
counters. The client is built once per process from settings; redis-py pools connections itself.
"""

from __future__ import annotations

import functools
import os
import socket
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis
from redis.commands.core import Script
from redis.connection import AbstractConnection

from core.fail_fast import FailFast
from settings import get_settings

POOL_WAIT = 5.0
_own = threading.local()


@lru_cache(maxsize=1)
def get_redis() -> redis.Redis:
    """The process-wide client (decoded strings in and out). Past ``REDIS_MAX_CONNECTIONS`` a caller
    waits up to ``POOL_WAIT`` seconds for a free connection: a burst of greenlets queues instead of
    failing (redis-py's own pool raises at its default of 100). Every connect and reply has a deadline of
    ``REDIS_SOCKET_TIMEOUT``: an unreachable Redis fails a request instead of hanging it."""
    settings = get_settings()
    pool = redis.BlockingConnectionPool.from_url(
        settings.redis_url,
        max_connections=settings.redis_max_connections,
        timeout=POOL_WAIT,
        socket_timeout=settings.redis_socket_timeout,
        socket_connect_timeout=settings.redis_socket_timeout,
        decode_responses=True,
    )
    # Whatever the URL's scheme chose (plain, TLS, socket), its connects fail fast after one timed out.
    breaker = FailFast(settings.redis_socket_timeout)
    pool.connection_class = type(
        f"FailFast{pool.connection_class.__name__}",
        (_FailFastConnect, pool.connection_class),
        {"breaker": breaker},
    )
    return redis.Redis(connection_pool=pool)


class _FailFastConnect:
    """A Redis connection that does not try to connect while a connect of this process has just timed
    out (``core.fail_fast``): redis-py's retries and the next calls of the request fail at once."""

    breaker: FailFast

    def _connect(self) -> socket.socket:
        if self.breaker.open:
            raise OSError(f"not tried: a connect timed out less than {self.breaker.seconds:g} s ago")
        try:
            sock: socket.socket = super()._connect()  # type: ignore[misc]
        except TimeoutError:
            self.breaker.trip()
            raise
        return sock


def run_on_own_connection(*command: str | int) -> Any:
    """``command`` on this thread's own connection to the client's server, kept between calls: for the
    command every validating request sends (the rate-limit script). Through the client, the pool's
    checkout and check-in (a process check, a readiness poll, metrics) and the retry wrapper cost more
    CPU than the round trip itself. A broken connection is dropped and the command sent once more on a
    new one, as the client's own retry does; errors Redis answers (NOSCRIPT) are raised as the client's.
    """
    connection = _own_connection()
    try:
        return _send(connection, command)
    except (redis.ConnectionError, redis.TimeoutError):
        return _send(connection, command)  # on a new socket: ``_send`` dropped the broken one


def _send(connection: AbstractConnection, command: tuple[str | int, ...]) -> Any:
    try:
        connection.send_command(*command)  # type: ignore[no-untyped-call]
        return connection.read_response()
    except (redis.ConnectionError, redis.TimeoutError):
        # A reply may still be in flight: the socket is never reused (the next send reconnects).
        connection.disconnect()  # type: ignore[no-untyped-call]
        raise


def _own_connection() -> AbstractConnection:
    """This thread's connection, made like the client's pooled ones; a new one after ``reset`` or a fork."""
    client = get_redis()
    held = getattr(_own, "held", None)
    if held is None or held[0] is not client or held[1] != os.getpid():
        pool = client.connection_pool
        held = _own.held = (client, os.getpid(), pool.connection_class(**pool.connection_kwargs))
    connection: AbstractConnection = held[2]
    return connection


def key(*parts: str | int) -> str:
    """``key("rl", 42, "minute")`` -> ``"vm:rl:42:minute"`` with the configured prefix."""
    return get_settings().redis_key_prefix + ":".join(str(part) for part in parts)


def script(source: str) -> Callable[..., Any]:
    """A Lua script bound to the current client, called as ``script(SOURCE)(keys=[...], args=[...])``.
    Registered once per process: redis-py's ``register_script`` hashes the source on every call, and
    the lanes and politeness scripts run several times per probed address."""
    return functools.partial(registered(source), client=get_redis())


@functools.cache
def registered(source: str) -> Script:
    """The script object of ``source`` (its ``sha``); called through ``script``, it reloads the script
    into a Redis that restarted and forgot it."""
    return get_redis().register_script(source)


def reset() -> None:
    """Forget the cached client (tests that change REDIS_URL call this after ``get_settings.cache_clear``)."""
    get_redis.cache_clear()
