"""A database and a Redis key prefix of one's own, created for a run and removed after it: what the demo
runs on, and what tests of ``bin/run`` and ``bin/demo`` check is gone. On the shared servers, so nothing
here touches a database or key it did not make."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg2
import redis
from sqlalchemy import URL, make_url

DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/verimail"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def own_database(prefix: str) -> Iterator[str]:
    """The URL of a new empty database named ``<prefix>_<random>``, dropped on the way out."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    server = _server()
    _sql(server, f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        _sql(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_exists(name: str) -> bool:
    conn = psycopg2.connect(_dsn(_server().set(database="postgres")))
    try:
        cursor = conn.cursor()
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
        return cursor.fetchone() is not None
    finally:
        conn.close()


def new_key_prefix(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(4)}:"


def redis_keys(key_prefix: str) -> list[bytes]:
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    return list(client.scan_iter(match=f"{key_prefix}*", count=1000))


def forget_keys(key_prefix: str) -> None:
    """Delete the keys under ``key_prefix`` (SCAN, never FLUSHDB on a shared server)."""
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    keys = redis_keys(key_prefix)
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])


def _server() -> URL:
    base = make_url(os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    return base.set(drivername="postgresql")  # libpq's own form: psycopg2 reads no SQLAlchemy driver names


def _dsn(url: URL) -> str:
    return url.render_as_string(hide_password=False)


def _sql(server: URL, statement: str) -> None:
    conn = psycopg2.connect(_dsn(server.set(database="postgres")))
    try:
        conn.autocommit = True
        conn.cursor().execute(statement)
    finally:
        conn.close()
