"""The operator's terms for a reseller: how many sub-users it may have and its commission rate (spec 2.9).

Set with ``flask --app web resellers set``; a reseller nobody set terms for may open
``RESELLER_MAX_SUB_USERS`` sub-users (25 by default: every sub-user spends the prober's reputation, so an
unlimited tier is the operator's decision, never a default) and earns 20%.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from models.accounts import Account
from models.resellers import DEFAULT_COMMISSION_RATE, ResellerTerms
from models.session import transaction
from services.errors import InvalidField, NotFound
from services.resellers.access import ensure_reseller
from settings import get_settings


class Keep(Enum):
    """Leave a term as it is (``None`` already means "unlimited" for the cap)."""

    KEEP = "keep"


@dataclass(frozen=True)
class Terms:
    max_sub_users: int | None  # None: unlimited
    commission_rate: Decimal  # percent


def terms_in(session: Session, reseller_id: int) -> Terms:
    row = session.get(ResellerTerms, reseller_id)
    if row is None:
        return Terms(get_settings().reseller_max_sub_users, DEFAULT_COMMISSION_RATE)
    return Terms(row.max_sub_users, row.commission_rate)


def set_terms(
    account_id: int,
    *,
    max_sub_users: int | Keep | None = Keep.KEEP,
    commission_rate: Decimal | Keep = Keep.KEEP,
) -> Terms:
    """Change a reseller's cap (``None``: unlimited) and/or commission rate (percent, two decimals)."""
    if isinstance(commission_rate, Decimal):
        _check_rate(commission_rate)
    if isinstance(max_sub_users, int) and max_sub_users < 0:
        raise InvalidField("maxSubUsers", "The sub-user limit is a whole number, 0 or more, or unlimited.")
    with transaction() as session:
        account = session.get(Account, account_id)
        if account is None:
            raise NotFound(f"No account with id {account_id}.")
        ensure_reseller(account)
        current = terms_in(session, account_id)
        wanted = Terms(
            current.max_sub_users if max_sub_users is Keep.KEEP else max_sub_users,
            current.commission_rate if commission_rate is Keep.KEEP else commission_rate,
        )
        values = {"max_sub_users": wanted.max_sub_users, "commission_rate": wanted.commission_rate}
        session.execute(
            insert(ResellerTerms)
            .values(account_id=account_id, **values)
            .on_conflict_do_update(index_elements=["account_id"], set_=values)
        )
    return wanted


def _check_rate(rate: Decimal) -> None:
    if not rate.is_finite() or not Decimal(0) <= rate <= Decimal(100):
        raise InvalidField("commissionRate", "The commission rate is a percentage from 0 to 100.")
    if rate != rate.quantize(Decimal("0.01")):
        raise InvalidField("commissionRate", "The commission rate has at most two decimals.")
