"""Engine and transactions. Services own the transaction: ``with transaction() as session: ...``.

Sessions do not expire objects on commit, so a service can return ORM rows that views read after the
transaction ended (they are detached snapshots; nothing lazy-loads from them later).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from sqlalchemy import URL, Engine, create_engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from settings import get_settings


def database_url(raw: str | None = None) -> URL:
    """DATABASE_URL as SQLAlchemy should use it: plain ``postgresql://`` means psycopg2, our driver.

    SQLAlchemy 2.1 maps a bare ``postgresql://`` to psycopg 3, which we do not install; the URL users
    write (and Heroku-style platforms hand out) stays the plain one.
    """
    url = make_url(raw if raw is not None else get_settings().database_url)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg2")
    return url


@lru_cache(maxsize=1)
def get_engine() -> Engine:
    """One pooled engine per process; pre-ping so a restarted Postgres costs one retry, not a 500."""
    return create_engine(database_url(), pool_pre_ping=True)


@lru_cache(maxsize=1)
def autocommit_engine() -> Engine:
    """The same pool, each statement its own transaction: for a write that is one statement, so no row
    lock it takes outlives the statement while the client sends COMMIT."""
    return get_engine().execution_options(isolation_level="AUTOCOMMIT")


@lru_cache(maxsize=1)
def _session_factory() -> sessionmaker[Session]:
    return sessionmaker(get_engine(), expire_on_commit=False)


@contextmanager
def transaction() -> Iterator[Session]:
    """A session that commits when the block ends normally and rolls back when it raises."""
    with _session_factory().begin() as session:
        yield session


def reset() -> None:
    """Drop the pooled connections and forget the engine (after DATABASE_URL changed, or at fork)."""
    if get_engine.cache_info().currsize:
        get_engine().dispose()
    get_engine.cache_clear()
    autocommit_engine.cache_clear()
    _session_factory.cache_clear()
