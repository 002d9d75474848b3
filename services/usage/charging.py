"""Charging validations against the monthly quota: ``charge_validations``, or ``charged_transaction`` for work
that commits with its charge.

Postgres is the record. A charge is one transaction that (1) makes sure the period row exists, (2) claims
the idempotency key (a unique row in ``usage_charges``), (3) adds the count with a conditional
``UPDATE ... WHERE used + n <= hard_limit RETURNING`` and (4) emits the threshold events it crossed.
The UPDATE row-locks the period, so concurrent charges queue on it and each sees its own exact result:
no lost updates, no double events, and the hard limit is never passed. A second charge with the same key
(a redelivered task, a retried request) waits for the first at the unique index and then counts nothing.

Work that must exist exactly when its charge does (a quickMode validation's job record) is written in the
charging transaction: ``with charged_transaction(...) as (session, charged)``, so one connection checkout and
one commit cover both, and a refusal or a crash leaves neither. Either way the caller gets the quota status
it charged (``Charged``), for its answer's headers.

The common charge also has a one-statement form (quickMode's): when the period row exists, is open, has
room, and this charge crosses no threshold, one autocommitted statement counts it, claims its key and writes
the caller's rows, so the period's row lock is held only inside Postgres, never across a round trip to a
busy Python process (with every request of an account queueing on that one row, the lock's hold time *is*
the account's throughput). The caller owns that statement (``services.jobs.store`` for quickMode's job):
it opens with this module's ``charge_ctes`` and ends with ``LEAVE_CHARGED``, its barrier is ``DURABLE``, and
``StatementCharge`` holds the values and turns what was counted into the quota status. Anything else (the
period's first charge, a threshold, a refusal, a closed period, a replayed key) matches nothing there and
takes the transaction above, unchanged.

A charge that answers a publishable key (a web page, ``publishable_key_id``) stops at the quota itself,
never running into the billed overage buffer, is marked with the key (its budget's record, and left out of
the rebuild of the account's request windows) and counts in the period's ``publishable_used`` too.

Batch rule: a batch is charged all or nothing. It runs only when all N validations fit under the hard
limit (120%); otherwise nothing is charged and the client learns how many remain. Partial batches would
make a 200 answer mean "some of your addresses were silently skipped".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.audit import AuditEvent
from models.session import transaction
from models.usage import UsageCharge, UsagePeriod
from services import audit
from services.auth import Actor
from services.usage import quota_events
from services.usage.errors import PublishableQuotaExhausted, QuotaExhausted
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


# The charge's part of one statement (see the module docstring). The period row is updated first and every
# other write selects from ``charged`` (one row, the period's id, when charged): no row, no write. The
# threshold conditions keep this path to charges that send no quota event (those take the full
# transaction); ``only_if`` is the caller's own condition for the path. The statement's last query leaves
# what it counted in a session setting, and ``DURABLE``, the barrier, reads it back (empty: nothing charged).
_CHARGE_CTES = """
charged AS (
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
)"""
LEAVE_CHARGED = (
    "SELECT set_config('verimail.charged_used', COALESCE((SELECT used FROM charged)::text, ''), false)"
)
DURABLE = "SELECT NULLIF(current_setting('verimail.charged_used'), '')::bigint, txid_current()"


def charge_ctes(only_if: str = "TRUE") -> str:
    """The charge as the first CTEs of one statement; ``only_if``, a condition of the caller's, must hold
    too (it is read before anything is written)."""
    return _CHARGE_CTES.format(only_if=only_if)


@dataclass(frozen=True)
class StatementCharge:
    """A charge of ``count`` validations to be made by one statement (``charge_ctes``): its ``params`` and
    the quota it leaves. A key charged before fails the claim's unique index, which undoes the whole
    statement: the caller then takes ``charge_validations``, which answers the replay."""

    params: dict[str, Any]
    at: datetime
    limit: int
    period: Period

    def status(self, barrier: tuple[Any, ...] | None) -> QuotaStatus | None:
        """The quota after the charge, from the row ``DURABLE`` returned; None when nothing was charged."""
        used = barrier[0] if barrier is not None else None
        return None if used is None else QuotaStatus(self.limit, int(used), self.period)


def statement_charge(account: Account, count: int, idempotency_key: str) -> StatementCharge:
    """The values of a one-statement charge of ``count`` under ``idempotency_key``, made now (``at``)."""
    now = clock.now()
    limit = plan_for(account.tier).monthly_volume
    period = period_containing(account.billing_anchor, now)
    params = {
        "count": count,
        "limit": limit,
        "hard_limit": hard_limit_of(limit),
        "warning_from": warning_from(limit),
        "account_id": account.id,
        "period_start": period.start,
        "idempotency_key": idempotency_key,
        "now": now,
    }
    return StatementCharge(params, now, limit, period)


@dataclass(frozen=True)
class _Charge:
    """One charge as asked: ``publishable_key_id`` when it answers a publishable key."""

    count: int
    idempotency_key: str
    publishable_key_id: int | None = None


def charge_validations(
    account: Account,
    count: int,
    idempotency_key: str,
    *,
    by: Actor | None = None,
    publishable_key_id: int | None = None,
) -> Charged:
    """Count ``count`` validations (a batch of N is N) once per ``idempotency_key``, or raise QuotaExhausted.

    Call it before the work runs, under a key the retry of the same work will repeat (request id, batch id).
    ``by`` is who asked, for the audit entry written when the hard limit first refuses someone this period.
    ``publishable_key_id``: the charge answers that publishable key, and is refused at the quota itself
    (``PublishableQuotaExhausted``) rather than run into overage.
    """
    charge = _Charge(count, idempotency_key, publishable_key_id)
    with _charged_transaction(account, charge, by) as (_, charged):
        return charged


@contextmanager
def charged_transaction(
    account: Account, count: int, idempotency_key: str, *, by: Actor | None = None
) -> Iterator[tuple[Session, Charged]]:
    """``charge_validations`` in a transaction left open for the block: what the block writes with the
    session commits with the charge. A replayed charge (``Charged.replayed``) finds the first one's writes
    made already."""
    with _charged_transaction(account, _Charge(count, idempotency_key), by) as charged:
        yield charged


@contextmanager
def _charged_transaction(
    account: Account, charge: _Charge, by: Actor | None
) -> Iterator[tuple[Session, Charged]]:
    if charge.count < 1:
        raise ValueError("a charge counts at least one validation")
    try:
        with transaction() as session:
            yield session, _charge(session, account, charge, clock.now())
    except PublishableQuotaExhausted:
        raise  # the account is not blocked: its servers still run into the overage buffer
    except QuotaExhausted as refused:
        _note_refusal(account, refused, by)
        raise


def _charge(session: Session, account: Account, charge: _Charge, now: datetime) -> Charged:
    try:
        return _charge_period(session, account, charge, now)
    except _PeriodClosed as closed:
        return _charge_period(session, account, charge, max(now, closed.end))


def _charge_period(session: Session, account: Account, charge: _Charge, now: datetime) -> Charged:
    limit = plan_for(account.tier).monthly_volume
    row = open_period(session, account, now)
    period = Period(row.period_start, row.period_end)
    if not _claim(session, row, charge, now):
        return Charged(QuotaStatus(limit, _used(session, row.id), period), replayed=True)
    count, publishable = charge.count, charge.publishable_key_id is not None
    counted: dict[str, object] = {"used": UsagePeriod.used + count, "quota_limit": limit}
    if publishable:
        counted["publishable_used"] = UsagePeriod.publishable_used + count
    result = session.execute(
        update(UsagePeriod)
        .where(UsagePeriod.id == row.id, UsagePeriod.closed_at.is_(None))
        .where(UsagePeriod.used + count <= (limit if publishable else hard_limit_of(limit)))
        .values(counted)
        .returning(UsagePeriod.used, UsagePeriod.warning_sent_at, UsagePeriod.exceeded_sent_at)
    ).one_or_none()
    if result is None:
        _refuse(session, row, limit, charge, now=now)
    used, warning_sent_at, exceeded_sent_at = result
    status = QuotaStatus(limit, used, period)
    sent = (warning_sent_at is not None, exceeded_sent_at is not None)
    quota_events.on_charged(session, row, status, sent=sent, now=now)
    return Charged(status, replayed=False)


def _refuse(session: Session, row: UsagePeriod, limit: int, charge: _Charge, *, now: datetime) -> NoReturn:
    """Raise the reason the conditional update matched nothing: the quota (the transaction rolls the claimed
    key back), or the period closed meanwhile (the key is let go here, to be claimed in the next one)."""
    session.refresh(row)
    if row.closed_at is not None:
        session.execute(
            delete(UsageCharge).where(
                UsageCharge.account_id == row.account_id,
                UsageCharge.idempotency_key == charge.idempotency_key,
            )
        )
        raise _PeriodClosed(row.period_end)
    status = QuotaStatus(limit, row.used, Period(row.period_start, row.period_end))
    if charge.publishable_key_id is not None:
        raise PublishableQuotaExhausted(status, charge.count, now)
    raise QuotaExhausted(status, charge.count, now)


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


def _claim(session: Session, row: UsagePeriod, charge: _Charge, now: datetime) -> bool:
    """Insert the charge row; False when this key was charged before (the caller then counts nothing)."""
    claimed = session.execute(
        insert(UsageCharge)
        .values(
            account_id=row.account_id,
            period_id=row.id,
            idempotency_key=charge.idempotency_key,
            validations=charge.count,
            charged_at=now,
            publishable_key_id=charge.publishable_key_id,
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
        row = session.execute(
            select(UsagePeriod.used, UsagePeriod.publishable_used).where(
                UsagePeriod.account_id == account.id, UsagePeriod.period_start == period.start
            )
        ).one_or_none()
    used, publishable_used = row or (0, 0)
    return QuotaStatus(plan_for(account.tier).monthly_volume, used, period, publishable_used)


def requests_since(account_id: int, minute_start: datetime, day_start: datetime) -> tuple[int, int]:
    """Charged requests since each instant: what rebuilds the rate-limit counters after a Redis restart.
    Answers to publishable keys are not the account's requests (their keys' budgets count them)."""
    minute = func.count().filter(UsageCharge.charged_at >= minute_start)
    stmt = select(minute, func.count()).where(
        UsageCharge.account_id == account_id,
        UsageCharge.charged_at >= day_start,
        UsageCharge.publishable_key_id.is_(None),
    )
    with transaction() as session:
        in_minute, in_day = session.execute(stmt).one()
    return int(in_minute), int(in_day)
