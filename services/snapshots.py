"""Per-process snapshots of the rows every request reads: an API key with its account, a reseller's brand.

Reading them from Postgres on every request would cost a connection checkout, a ping and a query each;
a web process keeps them in memory, and a change reaches every process within a second (a revoked or
rotated key must be refused everywhere within 1 s). How:

- **A generation in Redis.** Any committed ORM write to ``api_keys``, ``accounts`` or ``white_labels``
  (a flush or an ORM-enabled INSERT/UPDATE/DELETE, from any process: web, worker, CLI) clears this
  process's snapshots and increments ``snapshots:generation`` after the commit (``_after_commit``).
  Authenticated requests read the generation (``sync``, one GET) before using a snapshot, at most once
  per ``SYNC_SECONDS`` per process (the process that made the change has cleared its own at once), and
  a changed value drops them all: a revocation is refused by every process within ``SYNC_SECONDS``
  of its commit. Reading it on every request was one Redis round trip in three of a quick validation.
- **A short life.** A snapshot is used for at most ``TTL_SECONDS``, whatever the generation says: a write
  the hook cannot see (SQL typed by hand, an increment lost with Redis) is still picked up within that.
- **Redis down**: ``sync`` cannot read the generation, and snapshots are not used until it can (every
  request reads Postgres, as before); never served stale for longer than the TTL.

Writers that change nothing a request reads (``last_used_at``) say so with the execution option
``KEEPS_SNAPSHOTS`` so they do not clear every process's snapshots once a minute.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from redis.exceptions import RedisError
from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

from models.accounts import Account
from models.keys import ApiKey
from models.resellers import WhiteLabel
from services.redis_client import get_redis, key

TTL_SECONDS = 0.5
# How long a process trusts the generation it read last (a change must reach every process within 1 s).
SYNC_SECONDS = 0.1
# How long a thread waits for another thread's load of the same snapshot before reading it itself.
LOAD_WAIT_SECONDS = 1.0
KEEPS_SNAPSHOTS = "verimail_keeps_snapshots"
WATCHED = (ApiKey, Account, WhiteLabel)
_DIRTY = "verimail_snapshots_dirty"
log = logging.getLogger(__name__)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class _Entry(Generic[V]):
    value: V
    generation: str
    stored_at: float


class _Generation:
    """This process's view of the Redis generation: None until read, and while Redis is unreachable."""

    def __init__(self) -> None:
        self.value: str | None = None
        self.read_at = 0.0


_generation = _Generation()
_caches: list[Snapshots[Any, Any]] = []


class Snapshots(Generic[K, V]):
    """One kind of snapshot (``get(key, load)``); ``load`` reads Postgres, None means "not found" and is
    never kept (a flood of made-up keys must not fill memory)."""

    def __init__(self) -> None:
        self._entries: dict[K, _Entry[V]] = {}
        self._loading: dict[K, threading.Event] = {}
        self._lock = threading.Lock()
        _caches.append(self)

    def get(self, cache_key: K, load: Callable[[], V | None]) -> V | None:
        generation = _generation.value
        if generation is None or time.monotonic() - _generation.read_at > TTL_SECONDS:
            return load()  # not synced lately (Redis down, or a process that never syncs): no snapshots
        if (value := self._fresh(cache_key, generation)) is not None:
            return value
        return self._load_once(cache_key, generation, load)

    def _fresh(self, cache_key: K, generation: str) -> V | None:
        entry = self._entries.get(cache_key)
        if entry is None or entry.generation != generation:
            return None
        return entry.value if time.monotonic() - entry.stored_at <= TTL_SECONDS else None

    def _load_once(self, cache_key: K, generation: str, load: Callable[[], V | None]) -> V | None:
        """One thread of the process loads an expired entry while the others wait for its answer: when a
        busy key's snapshot expired, every thread serving that key missed it at once and each read the
        same row (measured: the key and brand loads were 4% of a quick validation's CPU). A waiter whose
        loader found nothing, or failed, loads for itself."""
        with self._lock:
            loading = self._loading.get(cache_key)
            mine = loading is None
            if loading is None:
                loading = self._loading[cache_key] = threading.Event()
        if not mine:
            loading.wait(LOAD_WAIT_SECONDS)
            found = self._fresh(cache_key, generation)
            return found if found is not None else load()
        try:
            started = time.monotonic()
            value = load()  # read after the generation: a write committed since shows up as a new generation
            if value is not None:
                with self._lock:
                    self._entries[cache_key] = _Entry(value, generation, started)
            return value
        finally:
            with self._lock:
                del self._loading[cache_key]
            loading.set()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def sync() -> None:
    """Read the generation (before any snapshot is used, unless read in the last ``SYNC_SECONDS``); drop
    everything it changed."""
    if _generation.value is not None and time.monotonic() - _generation.read_at < SYNC_SECONDS:
        return
    try:
        current = str(get_redis().get(key("snapshots", "generation")) or "0")
    except RedisError:
        log.warning("snapshot generation unreadable: reading keys from Postgres", exc_info=True)
        _generation.value = None
        return
    if current != _generation.value:
        clear_all()
    _generation.value, _generation.read_at = current, time.monotonic()


def clear_all() -> None:
    for cache in _caches:
        cache.clear()


def _published() -> None:
    """After a commit that changed watched rows: clear here at once, then tell every other process."""
    clear_all()
    try:
        get_redis().incr(key("snapshots", "generation"))
    except RedisError:
        log.warning(
            "snapshot generation not incremented: other processes see the change within %ss",
            TTL_SECONDS,
            exc_info=True,
        )


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _flush: UOWTransaction) -> None:
    changed = (*session.new, *session.dirty, *session.deleted)
    if any(isinstance(row, WATCHED) for row in changed):
        session.info[_DIRTY] = True


@event.listens_for(Session, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    # Inserts too: an upsert (``ON CONFLICT DO UPDATE``, the white-label settings) changes a row.
    writes = state.is_insert or state.is_update or state.is_delete
    if writes and not state.execution_options.get(KEEPS_SNAPSHOTS):
        mapper = state.bind_mapper
        if mapper is not None and issubclass(mapper.class_, WATCHED):
            state.session.info[_DIRTY] = True


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if session.info.pop(_DIRTY, False):
        _published()
