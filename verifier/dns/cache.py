"""The DNS answer cache: a tiny protocol so the workers can share one cache through Redis.

The engine stores strings (JSON) with a TTL and never imports a Redis client; the service wraps its
Redis connection in an object with these two methods. ``MemoryCache`` serves the CLI and tests.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol


class TtlCache(Protocol):
    """A string cache with per-entry expiry; implementations must be safe to call from several threads."""

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str, ttl_seconds: int) -> None: ...


class MemoryCache:
    """An in-process ``TtlCache``, bounded in size (oldest entries go first)."""

    def __init__(self, max_entries: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._max_entries = max_entries
        self._clock = clock
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires, value = entry
            if self._clock() >= expires:
                del self._entries[key]
                return None
            return value

    def set(self, key: str, value: str, ttl_seconds: int) -> None:
        if ttl_seconds <= 0:
            return  # a zero TTL means "do not cache" (RFC 1035 3.2.1)
        with self._lock:
            self._entries[key] = (self._clock() + ttl_seconds, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
