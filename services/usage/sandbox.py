"""Test mode's usage: the validations test keys ran this billing period, counted and never charged.

A test-mode submission adds its count in the transaction that records it (``count_validations``), to a
row of its own per account and period (``models.usage.SandboxUsage``), so a sandbox flood never queues on
the live quota's row lock. ``GET /api/usage`` under a test key reports it in the quota's shape
(``status``): ``used`` is the count, and since nothing is spent the sandbox never warns, enters grace or
refuses (docs/decisions.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.session import transaction
from models.usage import SandboxUsage
from services.usage.periods import period_containing
from services.usage.plans import plan_for
from services.usage.quota import QuotaState, QuotaStatus


@dataclass(frozen=True)
class SandboxQuota(QuotaStatus):
    """The quota as a test key sees it: the plan's numbers, none of them spent by ``used``."""

    @property
    def remaining(self) -> int:
        return self.limit

    @property
    def percentage(self) -> float:
        return 0.0

    @property
    def in_grace_period(self) -> bool:
        return False

    @property
    def state(self) -> QuotaState:
        return QuotaState.NORMAL


def count_validations(session: Session, account: Account, count: int) -> None:
    """Add ``count`` test-mode validations to the account's current period, in ``session``'s transaction."""
    start = period_containing(account.billing_anchor, clock.now()).start
    session.execute(
        insert(SandboxUsage)
        .values(account_id=account.id, period_start=start, used=count)
        .on_conflict_do_update(
            index_elements=[SandboxUsage.account_id, SandboxUsage.period_start],
            set_={"used": SandboxUsage.used + count},
        )
    )


def status(account: Account) -> SandboxQuota:
    """The test-mode validations of the current period (0 before the first)."""
    period = period_containing(account.billing_anchor, clock.now())
    stmt = select(SandboxUsage.used).where(
        SandboxUsage.account_id == account.id, SandboxUsage.period_start == period.start
    )
    with transaction() as session:
        used = session.scalars(stmt).one_or_none()
    return SandboxQuota(plan_for(account.tier).monthly_volume, used or 0, period)
