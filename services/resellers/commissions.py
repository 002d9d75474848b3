"""Commission reports (spec 2.9, 4.10): each sub-user's requests and revenue in a month, and the commission.

The current month is computed live (a sub-user that exists now counts to the month's end: what the month
will bill if nothing changes). A month that has ended is closed once, ``CLOSE_AFTER`` past its end, by
the beat task or by the first request for it, whichever comes first: its rows and rate are written to
``commission_reports``/``commission_lines`` and read from there ever after, so later usage, tier changes,
deletions or a new commission rate never change a closed month. Two closers at once agree: the report
row is unique per (reseller, month) and the loser reads the winner's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import or_, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account, Tier
from models.resellers import CommissionLine, CommissionReport, SubUser
from models.session import transaction
from services.auth import Actor
from services.errors import NotFound
from services.resellers import usage_facts
from services.resellers.access import ensure_acting_reseller
from services.resellers.revenue import Month, commission_cents, overage_usd, subscription_usd, to_cents
from services.resellers.terms import terms_in
from services.usage.plans import plan_for

# Charges in flight at midnight commit within milliseconds; this margin lets them land before the close.
CLOSE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Line:
    sub_user_id: str
    email: str
    requests: int
    revenue_cents: int
    commission_cents: int


@dataclass(frozen=True)
class Report:
    period: str
    commission_rate: Decimal
    lines: tuple[Line, ...]
    closed_at: datetime | None  # None: the month is still open and may change

    @property
    def total_revenue_cents(self) -> int:
        return sum(line.revenue_cents for line in self.lines)

    @property
    def commission_cents(self) -> int:
        return sum(line.commission_cents for line in self.lines)


def report(actor: Actor, period: str | None) -> Report:
    """The report of ``period`` (YYYY-MM; default: the current month) for the calling reseller."""
    ensure_acting_reseller(actor)
    now = clock.now()
    month = Month.parse(period) if period is not None else Month.containing(now)
    if month.start > now:
        raise NotFound(f"{month.label} has not begun; ask for the current month or an earlier one.")
    if now >= month.end + CLOSE_AFTER:
        return close_month(actor.account.id, month)
    with transaction() as session:
        rate = terms_in(session, actor.account.id).commission_rate
        return Report(month.label, rate, compute(session, actor.account.id, month, rate), None)


def close_month(reseller_id: int, month: Month) -> Report:
    """Write the report of an ended ``month`` unless it exists; either way, the stored report."""
    with transaction() as session:
        if (stored := _stored(session, reseller_id, month)) is not None:
            return stored
        rate = terms_in(session, reseller_id).commission_rate
        lines = compute(session, reseller_id, month, rate)
        closing = Report(month.label, rate, lines, clock.now())
        report_id = session.scalar(
            insert(CommissionReport)
            .values(
                reseller_id=reseller_id,
                period=month.label,
                commission_rate=rate,
                total_revenue_cents=closing.total_revenue_cents,
                commission_cents=closing.commission_cents,
                closed_at=closing.closed_at,
            )
            .on_conflict_do_nothing(index_elements=["reseller_id", "period"])
            .returning(CommissionReport.id)
        )
        if report_id is not None:
            session.add_all(_line_rows(report_id, lines))
            return closing
    with transaction() as session:  # a concurrent closer won: read what it wrote
        stored = _stored(session, reseller_id, month)
        assert stored is not None
        return stored


def close_ended_months() -> int:
    """Close every reseller's ended months that are not closed yet (the beat task); how many were closed."""
    last_open = Month.containing(clock.now() - CLOSE_AFTER)
    closed = 0
    for reseller_id, first in _resellers():
        done = _closed_periods(reseller_id)
        month = first
        while month.start < last_open.start:
            if month.label not in done:
                close_month(reseller_id, month)
                closed += 1
            month = month.following()
    return closed


def compute(session: Session, reseller_id: int, month: Month, rate: Decimal) -> tuple[Line, ...]:
    """Every sub-user that existed during ``month``, oldest first, with its revenue and commission."""
    subs = list(
        session.scalars(
            select(SubUser)
            .where(SubUser.reseller_id == reseller_id, SubUser.created_at < month.end)
            .where(or_(SubUser.deleted_at.is_(None), SubUser.deleted_at > month.start))
            .order_by(SubUser.created_at, SubUser.account_id)
        )
    )
    facts = usage_facts.gather(session, [sub.account_id for sub in subs], month)
    lines = []
    for sub in subs:
        tiers = [_tier_on(facts.tiers[sub.account_id], sub, start, end) for start, end in month.day_bounds()]
        last_tier = next(tier for tier in reversed(tiers) if tier is not None)
        revenue = to_cents(
            subscription_usd(tiers, month) + overage_usd(facts.overage.get(sub.account_id, 0), last_tier)
        )
        requests = facts.requests.get(sub.account_id, 0)
        lines.append(Line(sub.public_id, sub.email, requests, revenue, commission_cents(revenue, rate)))
    return tuple(lines)


def _tier_on(
    history: list[tuple[datetime, Tier]], sub: SubUser, start: datetime, end: datetime
) -> Tier | None:
    """The dearest tier the sub-user held at any moment of the day; None if it did not exist that day.

    Limits follow the live tier, so a day bills the most the sub-user could use that day: a reseller who
    holds a customer on Enterprise all day and switches it to Growth at 23:59 is billed Enterprise.
    """
    if sub.created_at >= end or (sub.deleted_at is not None and sub.deleted_at <= start):
        return None
    in_force = [tier for since, tier in history if since <= start][-1:]
    held = in_force + [tier for since, tier in history if start < since < end]
    return max(held or [history[0][1]], key=lambda tier: plan_for(tier).monthly_price_usd)


def _stored(session: Session, reseller_id: int, month: Month) -> Report | None:
    row = session.scalars(
        select(CommissionReport).where(
            CommissionReport.reseller_id == reseller_id, CommissionReport.period == month.label
        )
    ).one_or_none()
    if row is None:
        return None
    stmt = select(CommissionLine).where(CommissionLine.report_id == row.id).order_by(CommissionLine.position)
    lines = tuple(
        Line(line.sub_user_id, line.email, line.requests, line.revenue_cents, line.commission_cents)
        for line in session.scalars(stmt)
    )
    return Report(row.period, row.commission_rate, lines, row.closed_at)


def _line_rows(report_id: int, lines: tuple[Line, ...]) -> list[CommissionLine]:
    return [
        CommissionLine(
            report_id=report_id,
            position=position,
            sub_user_id=line.sub_user_id,
            email=line.email,
            requests=line.requests,
            revenue_cents=line.revenue_cents,
            commission_cents=line.commission_cents,
        )
        for position, line in enumerate(lines)
    ]


def _resellers() -> list[tuple[int, Month]]:
    """Every account that is or was a reseller (Enterprise Plus now, or parent of sub-users), and its
    first month."""
    parents = select(SubUser.reseller_id).distinct()
    stmt = select(Account.id, Account.created_at).where(
        or_(Account.tier == Tier.ENTERPRISE_PLUS.value, Account.id.in_(parents))
    )
    with transaction() as session:
        return [(account_id, Month.containing(created)) for account_id, created in session.execute(stmt)]


def _closed_periods(reseller_id: int) -> set[str]:
    stmt = select(CommissionReport.period).where(CommissionReport.reseller_id == reseller_id)
    with transaction() as session:
        return set(session.scalars(stmt))
