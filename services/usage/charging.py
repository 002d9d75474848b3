"""Charging validations against the monthly quota: the one entry point is ``charge_validations``.

Postgres is the record. A charge is one transaction that (1) makes sure the period row exists, (2) claims
the idempotency key (a unique row in ``usage_charges``), (3) adds the count with a conditional
``UPDATE ... WHERE used + n <= hard_limit RETURNING`` and (4) emits the threshold events it crossed.
The UPDATE row-locks the period, so concurrent charges queue on it and each sees its own exact result:
no lost updates, no double events, and the hard limit is never passed. A second charge with the same key
(a redelivered task, a retried request) waits for the first at the unique index and then counts nothing.

Work that must exist exactly when its charge does (a quickMode validation's job record) passes ``then``:
it runs in the charging transaction, so one connection checkout and one commit cover both, and a refusal
or a crash leaves neither.

The common charge also has a one-statement form (``AtOnce``, quickMode's): when the period row exists, is
open, has room, and this charge crosses no threshold, one autocommitted statement counts it, claims its key
and writes the caller's rows, so the period's row lock is held only inside Postgres, never across a round
trip to a busy Python process (with every request of an account queueing on that one row, the lock's hold
time *is* the account's throughput). Anything else (the period's first charge, a threshold, a refusal, a
closed period, a replayed key) matches nothing there and takes the transaction above, unchanged.

Batch rule: a batch is charged all or nothing. It runs only when all N validations fit under the hard
limit (120%); otherwise nothing is charged and the client learns how many remain. Partial batches would
make a 200 answer mean "some of your addresses were silently skipped".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn

import psycopg2
from sqlalchemy import func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.session import get_engine, transaction
from models.usage import UsageCharge, UsagePeriod
from services import audit
from services.auth import Actor
from services.usage import quota_events
from services.usage.errors import QuotaExhausted
from services.usage.periods import Period, period_containing
from services.usage.plans import plan_for
from services.usage.quota import QuotaStatus, hard_limit_of, warning_from


@dataclass(frozen=True)
class Charged:
    """The quota after a charge; ``replayed`` when the key had been charged before (nothing counted now)."""

    status: QuotaStatus
    replayed: bool


class _PeriodClosed(Exception):
    """The reset sweep closed the period between our read and our update: it has ended, charge the next."""

    def __init__(self, end: datetime) -> None:
        self.end = end


Then = Callable[[Session], None]


@dataclass(frozen=True)
class AtOnce:
    """What ``then`` writes, as SQL for the one-statement path: ``ctes`` (``name AS (...)``, comma separated)
    read the ``charged`` CTE (``SELECT id FROM charged`` is the period's id, one row when charged) and use
    their own ``params``; ``only_if`` is a condition the period row must also meet (else the full path runs,
    e.g. when ``then`` would also emit an event)."""

    ctes: str
    params: dict[str, Any]
    only_if: str = "TRUE"


# The period row is updated first and every other write selects from it: no row, no write. The threshold
# conditions keep this path to charges that send no quota event (those take the full transaction).
# Committed without waiting for the WAL flush, so the period's row lock is released when the statement
# ends rather than after an fsync (2 ms here, for every request of the account in turn); ``_DURABLE``
# then waits for the flush before anyone is answered: a transaction that takes a transaction id commits
# with a WAL record and, synchronous_commit being on for it, waits until the WAL is flushed up to it, so
# up to and including the charge. Barriers queue on no row, so concurrent ones share one fsync.
# Both go in one message to the server (one round trip, ``_Prepared.execute``): the statement leaves what it
# counted in a session setting, and the barrier reads it back (empty: nothing was charged).
_DURABLE = "SELECT NULLIF(current_setting('verimail.charged_used'), '')::bigint, txid_current()"
_AT_ONCE_HEAD = """
WITH charged AS (
  UPDATE usage_periods SET used = used + :count, quota_limit = :limit
  WHERE account_id = :account_id AND period_start = :period_start AND closed_at IS NULL
    AND used + :count <= :hard_limit
    AND (warning_sent_at IS NOT NULL OR used + :count < :warning_from)
    AND (exceeded_sent_at IS NOT NULL OR used + :count < :limit)
    AND ({only_if})
  RETURNING id, used
), claim AS (
  INSERT INTO usage_charges (account_id, period_id, idempotency_key, validations, charged_at)
  SELECT :account_id, id, :idempotency_key, :count, :now FROM charged
), {ctes}
SELECT set_config('verimail.charged_used', COALESCE((SELECT used FROM charged)::text, ''), false)
"""


def charge_validations(
    account: Account,
    count: int,
    idempotency_key: str,
    *,
    by: Actor | None = None,
    then: Then | None = None,
    at_once: AtOnce | None = None,
) -> Charged:
    """Count ``count`` validations (a batch of N is N) once per ``idempotency_key``, or raise QuotaExhausted.

    Call it before the work runs, under a key the retry of the same work will repeat (request id, batch id).
    ``by`` is who asked, for the audit entry written when the hard limit first refuses someone this period.
    ``then`` (optional) writes in the same transaction after a fresh charge; a replayed charge skips it,
    the first charge having written it already. ``at_once`` is ``then`` as SQL, tried first (see above).
    """
    if count < 1:
        raise ValueError("a charge counts at least one validation")
    now = clock.now()
    if at_once is not None and (charged := _charge_at_once(account, count, idempotency_key, now, at_once)):
        return charged
    try:
        try:
            return _charge(account, count, idempotency_key, now, then)
        except _PeriodClosed as closed:
            return _charge(account, count, idempotency_key, max(now, closed.end), then)
    except QuotaExhausted as refused:
        _note_refusal(account, refused, by)
        raise


def _charge(account: Account, count: int, idempotency_key: str, now: datetime, then: Then | None) -> Charged:
    limit = plan_for(account.tier).monthly_volume
    with transaction() as session:
        row = open_period(session, account, now)
        period = Period(row.period_start, row.period_end)
        if not _claim(session, row, idempotency_key, count, now):
            return Charged(QuotaStatus(limit, _used(session, row.id), period), replayed=True)
        result = session.execute(
            update(UsagePeriod)
            .where(UsagePeriod.id == row.id, UsagePeriod.closed_at.is_(None))
            .where(UsagePeriod.used + count <= hard_limit_of(limit))
            .values(used=UsagePeriod.used + count, quota_limit=limit)
            .returning(UsagePeriod.used, UsagePeriod.warning_sent_at, UsagePeriod.exceeded_sent_at)
        ).one_or_none()
        if result is None:
            _refuse(session, row, limit, count, now)
        used, warning_sent_at, exceeded_sent_at = result
        status = QuotaStatus(limit, used, period)
        sent = (warning_sent_at is not None, exceeded_sent_at is not None)
        quota_events.on_charged(session, row, status, sent=sent, now=now)
        if then is not None:
            then(session)
    return Charged(status, replayed=False)


def _charge_at_once(
    account: Account, count: int, idempotency_key: str, now: datetime, at_once: AtOnce
) -> Charged | None:
    """The one-statement charge, or None when its conditions do not hold (nothing was written then).

    A key charged before fails the claim's unique index, which undoes the whole statement; the full path
    then answers the replay."""
    limit = plan_for(account.tier).monthly_volume
    period = period_containing(account.billing_anchor, now)
    params = {
        **at_once.params,
        "count": count,
        "limit": limit,
        "hard_limit": hard_limit_of(limit),
        "warning_from": warning_from(limit),
        "account_id": account.id,
        "period_start": period.start,
        "idempotency_key": idempotency_key,
        "now": now,
    }
    try:
        used = _execute_at_once(_prepared(at_once), params)
    except psycopg2.IntegrityError:
        return None
    return None if used is None else Charged(QuotaStatus(limit, used, period), replayed=False)


@dataclass(frozen=True)
class _Prepared:
    """One ``AtOnce`` shape as a server-side prepared statement: ``prepare`` runs once per connection,
    ``execute`` on every charge. Prepared because Postgres planned the CTE afresh on every execution
    (measured: most of the statement's backend CPU); the plan now lives with the connection."""

    name: str
    prepare: str
    execute: str


_PREPARED: dict[tuple[str, str], _Prepared] = {}
_PREPARED_ON = "verimail_prepared"  # the names prepared on a connection, in its pool entry's ``info``
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _prepared(at_once: AtOnce) -> _Prepared:
    """Built once per caller's SQL (callers pass constant text; values are parameters): ``:name`` becomes
    ``$n`` in the PREPARE (Postgres infers each type from where it is used) and ``%(name)s`` in the EXECUTE
    (the driver quotes the values)."""
    cache_key = (at_once.ctes, at_once.only_if)
    if (found := _PREPARED.get(cache_key)) is None:
        clause = text(_AT_ONCE_HEAD.format(ctes=at_once.ctes, only_if=at_once.only_if))
        driver_sql = str(clause.compile(dialect=get_engine().dialect))
        names = list(dict.fromkeys(_PLACEHOLDER.findall(driver_sql)))
        numbered = _PLACEHOLDER.sub(lambda match: f"${names.index(match[1]) + 1}", driver_sql)
        name = f"verimail_at_once_{hashlib.sha256(driver_sql.encode()).hexdigest()[:16]}"
        arguments = ", ".join(f"%({parameter})s" for parameter in names)
        found = _PREPARED[cache_key] = _Prepared(
            name,
            prepare=f"PREPARE {name} AS {numbered.replace('%%', '%')}",
            execute=(
                f"BEGIN; SET LOCAL synchronous_commit TO off; EXECUTE {name}({arguments}); COMMIT; {_DURABLE}"
            ),
        )
    return found


def _execute_at_once(statement: _Prepared, params: dict[str, Any]) -> int | None:
    """The statement and the barrier in one round trip on a pooled connection's driver cursor (the message
    holds its own BEGIN and COMMIT). The driver directly because this runs on every quick validation:
    SQLAlchemy's result machinery cost a tenth of the request's CPU, for one integer."""
    pooled = get_engine().raw_connection()
    driver = pooled.driver_connection
    try:
        driver.autocommit = True  # type: ignore[union-attr]
        with driver.cursor() as cursor:  # type: ignore[union-attr]
            prepared: set[str] = pooled.info.setdefault(_PREPARED_ON, set())
            if statement.name not in prepared:
                cursor.execute(statement.prepare)
                prepared.add(statement.name)
            cursor.execute(statement.execute, params)  # durable before anyone is told
            row = cursor.fetchone()
        return None if row is None or row[0] is None else int(row[0])
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


def _refuse(session: Session, row: UsagePeriod, limit: int, count: int, now: datetime) -> NoReturn:
    """Raise the reason the conditional update matched nothing (which rolls the claimed key back)."""
    session.refresh(row)
    if row.closed_at is not None:
        raise _PeriodClosed(row.period_end)
    raise QuotaExhausted(QuotaStatus(limit, row.used, Period(row.period_start, row.period_end)), count, now)


def open_period(session: Session, account: Account, now: datetime) -> UsagePeriod:
    """The row of the period containing ``now``, created on first use (concurrent creators agree).

    Read first: the row exists for every charge but the period's first, so the common case is one SELECT.
    """
    period = period_containing(account.billing_anchor, now)
    stmt = select(UsagePeriod).where(
        UsagePeriod.account_id == account.id, UsagePeriod.period_start == period.start
    )
    if (row := session.scalars(stmt).one_or_none()) is not None:
        return row
    session.execute(
        insert(UsagePeriod)
        .values(
            account_id=account.id,
            period_start=period.start,
            period_end=period.end,
            quota_limit=plan_for(account.tier).monthly_volume,
        )
        .on_conflict_do_nothing(index_elements=["account_id", "period_start"])
    )
    return session.scalars(stmt).one()


def _claim(session: Session, row: UsagePeriod, idempotency_key: str, count: int, now: datetime) -> bool:
    """Insert the charge row; False when this key was charged before (the caller then counts nothing)."""
    claimed = session.execute(
        insert(UsageCharge)
        .values(
            account_id=row.account_id,
            period_id=row.id,
            idempotency_key=idempotency_key,
            validations=count,
            charged_at=now,
        )
        .on_conflict_do_nothing(index_elements=["account_id", "idempotency_key"])
        .returning(UsageCharge.id)
    ).first()
    return claimed is not None


def _used(session: Session, period_id: int) -> int:
    return session.scalars(select(UsagePeriod.used).where(UsagePeriod.id == period_id)).one()


def _note_refusal(account: Account, refused: QuotaExhausted, by: Actor | None) -> None:
    """Audit the first refusal of the period only: a client retrying in a loop must not flood the log."""
    with transaction() as session:
        first = session.execute(
            update(UsagePeriod)
            .where(UsagePeriod.account_id == account.id, UsagePeriod.blocked_at.is_(None))
            .where(UsagePeriod.period_start == refused.status.period.start)
            .values(blocked_at=clock.now())
            .returning(UsagePeriod.id)
        ).first()
        if first is None:
            return
        audit.record(
            AuditEvent.RATE_LIMITED,
            account_id=account.id,
            key_id=by.key_id if by else None,
            origin=by.origin if by else audit.SYSTEM,
            details={"window": "month", **refused.extra},
            session=session,
        )


def current_status(account: Account) -> QuotaStatus:
    """The quota of the current period without charging (a period nobody charged yet reads as 0 used)."""
    now = clock.now()
    period = period_containing(account.billing_anchor, now)
    with transaction() as session:
        used = session.scalars(
            select(UsagePeriod.used).where(
                UsagePeriod.account_id == account.id, UsagePeriod.period_start == period.start
            )
        ).one_or_none()
    return QuotaStatus(plan_for(account.tier).monthly_volume, used or 0, period)


def requests_since(account_id: int, minute_start: datetime, day_start: datetime) -> tuple[int, int]:
    """Charged requests since each instant: what rebuilds the rate-limit counters after a Redis restart."""
    minute = func.count().filter(UsageCharge.charged_at >= minute_start)
    stmt = select(minute, func.count()).where(
        UsageCharge.account_id == account_id, UsageCharge.charged_at >= day_start
    )
    with transaction() as session:
        in_minute, in_day = session.execute(stmt).one()
    return int(in_minute), int(in_day)
