"""A statement run on every request in one round trip: prepared on the server, sent on the driver connection.

Prepared because Postgres planned a long CTE statement afresh on every execution (measured on quickMode's
charge-and-record: most of the statement's backend CPU); the plan lives with the pooled connection. On the
driver connection directly because SQLAlchemy's result machinery cost a tenth of a quick validation's CPU,
for one row.

The statement (``committed_then``) runs in its own transaction committed without waiting for the WAL flush,
so the row locks it takes are released when it ends rather than after an fsync (2 ms here, for every request
queueing on the same row); the same message then runs the caller's barrier, a query that takes a
transaction id and so commits with a WAL record and, ``synchronous_commit`` being on for it, waits until the
WAL is flushed up to it, the statement included: nobody is told before the statement is durable. Barriers
queue on no row, so concurrent ones share one fsync.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import psycopg2
from sqlalchemy import text

from models.session import get_engine

_PREPARED_ON = "verimail_prepared"  # the names prepared on a connection, in its pool entry's ``info``
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@dataclass(frozen=True)
class Prepared:
    """One statement as a server-side prepared statement: ``prepare`` runs once per connection, ``message``
    on every call (the statement's EXECUTE, whose arguments the driver quotes, and the barrier)."""

    name: str
    prepare: str
    message: str


@cache
def committed_then(sql: str, then: str) -> Prepared:
    """``sql`` (``:name`` parameters) to be committed on its own, then the query ``then``, which must take a
    transaction id (the durability barrier above). Built once per text (callers pass constant text; values
    are parameters): ``:name`` becomes ``$n`` in the PREPARE (Postgres infers each type from where it is
    used) and ``%(name)s`` in the EXECUTE."""
    driver_sql = str(text(sql).compile(dialect=get_engine().dialect))
    names = list(dict.fromkeys(_PLACEHOLDER.findall(driver_sql)))
    numbered = _PLACEHOLDER.sub(lambda match: f"${names.index(match[1]) + 1}", driver_sql)
    name = f"verimail_prepared_{hashlib.sha256(driver_sql.encode()).hexdigest()[:16]}"
    arguments = ", ".join(f"%({parameter})s" for parameter in names)
    return Prepared(
        name,
        prepare=f"PREPARE {name} AS {numbered.replace('%%', '%')}",
        message=f"BEGIN; SET LOCAL synchronous_commit TO off; EXECUTE {name}({arguments}); COMMIT; {then}",
    )


def run_committed(statement: Prepared, params: dict[str, Any]) -> tuple[Any, ...] | None:
    """The statement and its barrier in one message on a pooled connection's driver (the message holds its
    own BEGIN and COMMIT); the barrier's row. A failed statement raises the driver's error, nothing of it
    written."""
    pooled = get_engine().raw_connection()
    driver = pooled.driver_connection
    try:
        driver.autocommit = True  # type: ignore[union-attr]
        with driver.cursor() as cursor:  # type: ignore[union-attr]
            prepared_here: set[str] = pooled.info.setdefault(_PREPARED_ON, set())
            if statement.name not in prepared_here:
                cursor.execute(statement.prepare)
                prepared_here.add(statement.name)
            cursor.execute(statement.message, params)  # durable before anyone is told
            row: tuple[Any, ...] | None = cursor.fetchone()
        return row
    except psycopg2.OperationalError:
        pooled.invalidate()  # the server went away: a new connection for the next request
        raise
    except psycopg2.Error:
        _roll_back(driver)  # a failed statement leaves the message's transaction open, and aborted
        raise
    finally:
        if not driver.closed:  # type: ignore[union-attr]
            driver.autocommit = False  # type: ignore[union-attr]
        pooled.close()


def _roll_back(driver: Any) -> None:
    if driver.info.transaction_status != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
        with driver.cursor() as cursor:
            cursor.execute("ROLLBACK")
