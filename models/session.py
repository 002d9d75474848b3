"""Engine and transactions. Services own the transaction: ``with transaction() as session: ...``.

Sessions do not expire objects on commit, so a service can return ORM rows that views read after the
transaction ended (they are detached snapshots; nothing lazy-loads from them later).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, TypeVar

import psycopg2
from sqlalchemy import URL, Dialect, Engine, create_engine, event, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, PoolProxiedConnection

from core.fail_fast import FailFast
from settings import get_settings

log = logging.getLogger(__name__)
T = TypeVar("T")


def database_url(raw: str | None = None) -> URL:
    """DATABASE_URL as SQLAlchemy should use it: plain ``postgresql://`` means psycopg2, our driver.

    SQLAlchemy 2.1 maps a bare ``postgresql://`` to psycopg 3, which we do not install; the URL users
    write (and Heroku-style platforms hand out) stays the plain one.
    """
    url = make_url(raw if raw is not None else get_settings().database_url)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg2")
    return url


# A connection back in the pool more recently than this is used without a ping first.
IDLE_PING_SECONDS = 1.0
# Connections a process keeps between uses: at least a web process's threads (gunicorn.conf.py, 8) and a
# threads-pool worker's concurrency (8), so none of them opens and closes a connection per request (with
# SQLAlchemy's default of 5, a busy 8-thread web process started a new Postgres backend for one request
# in 16). The pool still opens them only as concurrent use asks, up to ``DATABASE_POOL_SIZE``.
KEPT = 10


# A connect that waits longer fails: an unreachable host (a dropped route, a failover in flight) answers
# 503 in seconds, not after the kernel's two minutes of SYN retries (libpq's minimum is 2).
CONNECT_TIMEOUT_SECONDS = 5


@lru_cache(maxsize=1)
def get_engine() -> Engine:
    """One pooled engine per process; a connection idle for a while is pinged at checkout, so a restarted
    Postgres costs one retry, not a 500 (``_ping_if_idle``). Connects are bounded, and fail at once for a
    while after one timed out (``core.fail_fast``)."""
    most = get_settings().database_pool_size
    kept = min(KEPT, most)
    engine = create_engine(
        database_url(),
        pool_size=kept,
        max_overflow=most - kept,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS},
    )
    event.listen(engine, "checkout", _ping_if_idle)
    event.listen(engine, "checkin", _note_checkin)
    event.listen(engine, "do_connect", functools.partial(_connect, FailFast(CONNECT_TIMEOUT_SECONDS)))
    return engine


def _connect(
    breaker: FailFast, dialect: Dialect, _record: ConnectionPoolEntry, cargs: Any, cparams: Any
) -> Any:
    """The driver's connect, unless one timed out a moment ago: then at once the error it would give."""
    if breaker.open:
        raise psycopg2.OperationalError(f"not tried: a connect timed out less than {breaker.seconds:g} s ago")
    try:
        return dialect.connect(*cargs, **cparams)
    except psycopg2.OperationalError as error:
        if "timeout expired" in str(error):  # libpq's words for connect_timeout running out
            breaker.trip()
        raise


def _ping_if_idle(driver_connection: Any, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only after ``IDLE_PING_SECONDS`` in the pool: pinging every
    checkout was one more round trip on every request (measured: a tenth of a quick validation's time),
    while a connection used a moment ago is as alive as a ping would show. A failed ping makes the pool
    replace the connection and try again."""
    if time.monotonic() - record.info.get(_CHECKED_IN_AT, 0.0) <= IDLE_PING_SECONDS:
        return
    try:
        with driver_connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        driver_connection.rollback()  # the ping opened a transaction; hand the connection out idle
    except psycopg2.Error as dead:
        raise DisconnectionError(str(dead)) from dead


def _note_checkin(_driver_connection: Any, record: ConnectionPoolEntry) -> None:
    record.info[_CHECKED_IN_AT] = time.monotonic()


_CHECKED_IN_AT = "verimail_checked_in_at"


@lru_cache(maxsize=1)
def _session_factory() -> sessionmaker[Session]:
    return sessionmaker(get_engine(), expire_on_commit=False)


@contextmanager
def transaction() -> Iterator[Session]:
    """A session that commits when the block ends normally and rolls back when it raises."""
    with _session_factory().begin() as session:
        yield session


def unreachable(error: BaseException) -> bool:
    """Postgres could not be reached or dropped the connection (a restart, a failover), as opposed to a
    statement it refused: SQLAlchemy flags a dropped connection, and libpq's own connect errors carry no
    SQLSTATE where every error the server raises has one."""
    if not isinstance(error, DBAPIError):
        return False
    refused = isinstance(error.orig, psycopg2.OperationalError) and error.orig.pgcode is None
    return error.connection_invalidated or refused


def patiently(action: Callable[[], T], seconds: float, *, pause: float = 1.0) -> T:
    """``action`` (whole transactions, safe to run again), run again every ``pause`` seconds while Postgres
    is unreachable (a restart, a failover, an outage) for up to ``seconds``, then its error. A worker holding
    work goes on the moment the database is back, instead of dropping the work for a sweeper to find."""
    give_up, failing_since = time.monotonic() + seconds, 0.0
    while True:
        try:
            result = action()
        except DBAPIError as error:
            if not unreachable(error) or time.monotonic() + pause > give_up:
                raise
            if not failing_since:
                failing_since = time.monotonic()
                log.warning(
                    "Postgres unreachable, trying again every %g s for %g s: %s", pause, seconds, error
                )
            time.sleep(pause)
            continue
        if failing_since:
            log.warning("Postgres answers again, after %.1f s", time.monotonic() - failing_since)
        return result


def reset() -> None:
    """Drop the pooled connections and forget the engine (after DATABASE_URL changed, or at fork)."""
    if get_engine.cache_info().currsize:
        get_engine().dispose()
    get_engine.cache_clear()
    _session_factory.cache_clear()
