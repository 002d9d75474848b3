"""The commission report (spec 2.9, 4.10); money in USD as numbers with at most two decimals."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from services.resellers.commissions import Line, Report
from web.schemas.base import Out, Query, Timestamp
from web.schemas.inputs import patterned

PERIOD_PATTERN = r"^[2-9][0-9]{3}-(?:0[1-9]|1[0-2])$"  # from 2000
Period = Annotated[str, *patterned(PERIOD_PATTERN, "{field} must be a month written YYYY-MM (from 2000).")]


def usd(cents: int) -> float:
    """Whole cents as dollars: the shortest float repr of n/100 prints exactly two decimals or fewer."""
    return float(Decimal(cents) / 100)


class CommissionQuery(Query):
    period: Period | None = Field(
        default=None, description="YYYY-MM; default: the current month; 404 for a month that has not begun"
    )


class CommissionLineOut(Out):
    id: str = Field(description="the sub-user's id")
    email: str
    requests: int = Field(description="validations charged in the period")
    revenue: float = Field(description="USD: the prorated monthly price plus billed overage")
    commission: float = Field(description="USD: commissionRate percent of revenue, rounded half-up")

    @classmethod
    def of(cls, line: Line) -> CommissionLineOut:
        return cls(
            id=line.sub_user_id,
            email=line.email,
            requests=line.requests,
            revenue=usd(line.revenue_cents),
            commission=usd(line.commission_cents),
        )


class CommissionReportOut(Out):
    """A month's commission report; totals are the sums of the rows, to the cent."""

    period: str = Field(description="YYYY-MM")
    total_revenue: float = Field(description="USD")
    commission_rate: float = Field(description="percent")
    commission_earned: float = Field(description="USD")
    sub_users: list[CommissionLineOut]
    currency: Literal["usd"] = "usd"
    closed: bool = Field(description="true once the month is over and the report can no longer change")
    closed_at: Timestamp | None

    @classmethod
    def of(cls, report: Report) -> CommissionReportOut:
        return cls(
            period=report.period,
            total_revenue=usd(report.total_revenue_cents),
            commission_rate=float(report.commission_rate),
            commission_earned=usd(report.commission_cents),
            sub_users=[CommissionLineOut.of(line) for line in report.lines],
            closed=report.closed_at is not None,
            closed_at=report.closed_at,
        )
