"""What a month's commission report needs to know about sub-users' usage, read in three queries.

- tiers: each sub-user's tier history (``sub_user_tiers``), oldest first;
- requests: validations charged within the month (``usage_charges``: a batch of N counts N);
- overage: validations past the quota in the sub-user's billing period of that month. Sub-users' periods
  are the calendar months, so it is the period starting at the month's first instant; the figure billing
  uses (``overage``, frozen when the period closed) or, while it is open, ``used`` past ``quota_limit``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models.accounts import Tier
from models.resellers import SubUserTier
from models.usage import UsageCharge, UsagePeriod
from services.resellers.revenue import Month


@dataclass(frozen=True)
class UsageFacts:
    tiers: dict[int, list[tuple[datetime, Tier]]]
    requests: dict[int, int]
    overage: dict[int, int]


def gather(session: Session, account_ids: Sequence[int], month: Month) -> UsageFacts:
    return UsageFacts(
        tiers=_tiers(session, account_ids),
        requests=_requests(session, account_ids, month),
        overage=_overage(session, account_ids, month),
    )


def _tiers(session: Session, account_ids: Sequence[int]) -> dict[int, list[tuple[datetime, Tier]]]:
    stmt = (
        select(SubUserTier.account_id, SubUserTier.effective_at, SubUserTier.tier)
        .where(SubUserTier.account_id.in_(account_ids))
        .order_by(SubUserTier.account_id, SubUserTier.effective_at, SubUserTier.id)
    )
    history: dict[int, list[tuple[datetime, Tier]]] = defaultdict(list)
    for account_id, since, tier in session.execute(stmt):
        history[account_id].append((since, Tier(tier)))
    return history


def _requests(session: Session, account_ids: Sequence[int], month: Month) -> dict[int, int]:
    stmt = (
        select(UsageCharge.account_id, func.sum(UsageCharge.validations))
        .where(UsageCharge.account_id.in_(account_ids))
        .where(UsageCharge.charged_at >= month.start, UsageCharge.charged_at < month.end)
        .group_by(UsageCharge.account_id)
    )
    return {account_id: int(total) for account_id, total in session.execute(stmt)}


def _overage(session: Session, account_ids: Sequence[int], month: Month) -> dict[int, int]:
    stmt = select(UsagePeriod).where(
        UsagePeriod.account_id.in_(account_ids), UsagePeriod.period_start == month.start
    )
    return {
        row.account_id: row.overage if row.overage is not None else max(row.used - row.quota_limit, 0)
        for row in session.scalars(stmt)
    }
