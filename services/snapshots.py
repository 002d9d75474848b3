"""Per-process snapshots of the rows every request reads: an API key with its account, a reseller's brand.

Reading them from Postgres on every request would cost a connection checkout, a ping and a query each;
a web process keeps them in memory. A revoked or rotated key, a suspended or reactivated account, must
still be seen by every process on the very next request after the change was answered. How:

- **A generation in Redis.** Any ORM write to ``api_keys``, ``accounts`` or ``white_labels`` (a flush or
  an ORM-enabled INSERT/UPDATE/DELETE, from any process: web, worker, CLI) increments
  ``snapshots:generation`` inside its transaction, and again after its commit (``_bump``). The first
  increment makes the write fail when Redis cannot be told (a revocation that cannot reach every process
  is refused rather than half done); the second covers readers that re-read the row between the two.
- **Every entry carries the generation it was read under** (the latest this process had seen before the
  read). A request served from an entry confirms it on a round trip it makes anyway: the rate-limit
  script returns the current generation (``services.usage.rate_limits``), and an entry older than it is
  read again before the request is served (``services.auth.confirm``). A refusal taken from an entry is
  confirmed the same way before it is answered (``read_generation``).
- **A short life.** An entry is used for at most ``TTL_SECONDS``, whatever the generation says: a write
  the hooks cannot see (SQL typed by hand) is still picked up within that.
- **Redis down**: no generation can be read, and entries are not used until one is (every request reads
  Postgres).

Writers that change nothing a request reads (``last_used_at``) say so with the execution option
``KEEPS_SNAPSHOTS`` so they do not make every process read its keys again once a minute.
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
# How long a thread waits for another thread's load of the same snapshot before reading it itself.
LOAD_WAIT_SECONDS = 1.0
KEEPS_SNAPSHOTS = "verimail_keeps_snapshots"
WATCHED = (ApiKey, Account, WhiteLabel)
_DIRTY = "verimail_snapshots_dirty"
log = logging.getLogger(__name__)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def generation_key() -> str:
    """The Redis key of the generation (the rate-limit script reads it beside its counters)."""
    return key("snapshots", "generation")


@dataclass(frozen=True)
class Found(Generic[V]):
    """What ``Snapshots.get`` found: ``generation`` is the one the value was read under when it came from
    an entry, None when it was read from Postgres during this call (and so needs no confirming)."""

    value: V | None
    generation: str | None


@dataclass(frozen=True)
class _Entry(Generic[V]):
    value: V
    generation: str
    stored_at: float


class _Generation:
    """The latest generation this process has seen: None until read, and while Redis is unreachable."""

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

    def get(self, cache_key: K, load: Callable[[], V | None]) -> Found[V]:
        generation = _generation.value
        if generation is None or time.monotonic() - _generation.read_at > TTL_SECONDS:
            return Found(load(), None)  # no generation seen lately (Redis down, an idle process)
        if (value := self._fresh(cache_key, generation)) is not None:
            return Found(value, generation)
        return Found(self._load_once(cache_key, generation, load), None)

    def reload(self, cache_key: K, generation: str | None, load: Callable[[], V | None]) -> V | None:
        """Read ``cache_key`` again now, after ``generation`` was seen, and keep it under that generation."""
        value = load()
        with self._lock:
            if value is not None and generation is not None:
                self._entries[cache_key] = _Entry(value, generation, time.monotonic())
            else:
                self._entries.pop(cache_key, None)
        return value

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
            value = load()  # read after the generation was seen: a later write shows up as a new one
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


def observe(generation: str | None) -> None:
    """The generation as Redis just said it (None: Redis could not be read); entries of another one are
    dropped, since none of them can be served again."""
    if generation is not None and generation != _generation.value:
        clear_all()
    _generation.value, _generation.read_at = generation, time.monotonic()


def read_generation() -> str | None:
    """Ask Redis for the generation now (one GET): for paths that make no rate-limit round trip."""
    try:
        current: str | None = str(get_redis().get(generation_key()) or "0")
    except RedisError:
        log.warning("snapshot generation unreadable: reading keys from Postgres", exc_info=True)
        current = None
    observe(current)
    return current


def clear_all() -> None:
    for cache in _caches:
        cache.clear()


def _bump() -> None:
    clear_all()
    get_redis().incr(generation_key())


@event.listens_for(Session, "after_flush")
def _after_flush(session: Session, _flush: UOWTransaction) -> None:
    changed = (*session.new, *session.dirty, *session.deleted)
    if any(isinstance(row, WATCHED) for row in changed):
        _bump()  # inside the transaction: a RedisError here rolls the write back
        session.info[_DIRTY] = True


@event.listens_for(Session, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    # Inserts too: an upsert (``ON CONFLICT DO UPDATE``, the white-label settings) changes a row.
    writes = state.is_insert or state.is_update or state.is_delete
    if writes and not state.execution_options.get(KEEPS_SNAPSHOTS):
        mapper = state.bind_mapper
        if mapper is not None and issubclass(mapper.class_, WATCHED):
            _bump()
            state.session.info[_DIRTY] = True


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    if not session.info.pop(_DIRTY, False):
        return
    try:
        _bump()
    except RedisError:
        # The in-transaction increment already changed the generation; only a reader that re-read the
        # row between it and the commit can hold the old row, for at most TTL_SECONDS.
        log.warning("snapshot generation not incremented after commit", exc_info=True)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_DIRTY, None)
