"""Sub-users (spec 2.9, 4.9): accounts of their own that a reseller opens, changes, suspends and deletes.

A sub-user is an ``Account`` with its reseller as parent: its own keys, rate limits and quota by its tier,
usage, webhooks and audit log, all through the same code as any account. Its billing periods are calendar
months (anchored at the first of the month it was opened), so its quota, its overage and the reseller's
monthly commission report count the same month.

Isolation: a sub-user is found by (public id, reseller) and nothing else, so another reseller's ids (and
a deleted sub-user's) are "not found". Deleting keeps the rows (the commission report of that month still
needs them) and stops the keys at once: they are deactivated and the account is marked suspended, so
even a key created in a race with the deletion does not authenticate.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from core import clock
from models.accounts import PAID_TIERS, Account, Tier
from models.audit import AuditEvent
from models.keys import ApiKey, KeyStatus
from models.resellers import SubUser, SubUserTier
from models.session import transaction
from services import audit
from services.auth import Actor
from services.errors import NotFound
from services.keys import lifecycle
from services.keys.scopes import ADMIN
from services.resellers.access import ensure_acting_reseller
from services.resellers.errors import EmailTaken, SubUserLimitReached
from services.resellers.terms import terms_in
from services.usage.report import UsageReport, usage_report

ID_PREFIX = "sub_"
PAGE_MAX = 100
# Any tier below Enterprise Plus: a sub-user cannot resell in turn.
SUB_USER_TIERS: tuple[Tier, ...] = tuple(tier for tier in PAID_TIERS if tier is not Tier.ENTERPRISE_PLUS)


@dataclass(frozen=True)
class SubUserView:
    """A sub-user as its reseller sees it (detached snapshots of both rows)."""

    sub: SubUser
    account: Account

    @property
    def status(self) -> str:
        return "suspended" if self.account.suspended_at is not None else "active"


@dataclass(frozen=True)
class NewSubUser:
    email: str
    name: str
    tier: Tier


@dataclass(frozen=True)
class SubUserChanges:
    """A partial update; ``None`` leaves a field as it is. ``suspended`` False reactivates."""

    name: str | None = None
    tier: Tier | None = None
    suspended: bool | None = None


@dataclass(frozen=True)
class CreatedSubUser:
    view: SubUserView
    admin_key: lifecycle.IssuedKey


@dataclass(frozen=True)
class SubUserPage:
    items: list[SubUserView]
    has_more: bool


def month_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def create(actor: Actor, new: NewSubUser) -> CreatedSubUser:
    """Open the sub-user's account with one admin key (its secret is in the result, once)."""
    ensure_acting_reseller(actor)
    email, now = new.email.strip().lower(), clock.now()
    with transaction() as session:
        # The reseller's row lock serialises its creations: the cap and the email check hold.
        session.get_one(Account, actor.account.id, with_for_update=True)
        _check_cap(session, actor.account.id)
        if session.scalar(_live(actor.account.id).where(SubUser.email == email)) is not None:
            raise EmailTaken(f"You already have a sub-user with the email {email}.")
        account = Account(
            owner_email=email,
            name=new.name,
            tier=new.tier.value,
            billing_anchor=month_start(now),
            parent_account_id=actor.account.id,
            email_verified_at=now,  # the reseller vouches for its customer, as the operator does for accounts
        )
        sub = _add_rows(session, account, actor.account.id, now)
        issued = lifecycle.issue(session, account, lifecycle.KeySpec("Admin key", (ADMIN,)), audit.RESELLER)
        _audit(session, actor, AuditEvent.SUB_USER_CREATED, sub, email=email, tier=account.tier)
    return CreatedSubUser(SubUserView(sub, account), issued)


def _add_rows(session: Session, account: Account, reseller_id: int, now: datetime) -> SubUser:
    session.add(account)
    session.flush()
    sub = SubUser(
        account_id=account.id,
        reseller_id=reseller_id,
        public_id=ID_PREFIX + secrets.token_hex(12),
        email=account.owner_email,
    )
    session.add(sub)
    try:
        session.flush()
    except IntegrityError:  # the unique index behind the check above; unreachable under the row lock
        raise EmailTaken(f"You already have a sub-user with the email {account.owner_email}.") from None
    session.add(SubUserTier(account_id=account.id, tier=account.tier, effective_at=now))
    return sub


def _check_cap(session: Session, reseller_id: int) -> None:
    limit = terms_in(session, reseller_id).max_sub_users
    if limit is None:
        return
    live = session.scalar(select(func.count()).select_from(_live(reseller_id).subquery())) or 0
    if live >= limit:
        raise SubUserLimitReached(
            f"This account may have at most {limit} sub-users; delete one or ask us to raise the limit.",
            limit=limit,
        )


def list_page(actor: Actor, *, starting_after: str | None, limit: int) -> SubUserPage:
    """Live sub-users, oldest first; ``starting_after`` is the id of the last one of the previous page."""
    ensure_acting_reseller(actor)
    with transaction() as session:
        stmt = _views(actor.account.id)
        if starting_after is not None:
            after = _find(session, actor, starting_after)
            stmt = stmt.where(SubUser.account_id > after.sub.account_id)
        rows = list(session.execute(stmt.order_by(SubUser.account_id).limit(limit + 1)))
    items = [SubUserView(sub, account) for sub, account in rows[:limit]]
    return SubUserPage(items, has_more=len(rows) > limit)


def get(actor: Actor, sub_id: str) -> SubUserView:
    ensure_acting_reseller(actor)
    with transaction() as session:
        return _find(session, actor, sub_id)


def update(actor: Actor, sub_id: str, changes: SubUserChanges) -> SubUserView:
    """Rename, change tier (recorded for proration) and/or suspend or reactivate a sub-user."""
    ensure_acting_reseller(actor)
    now = clock.now()
    with transaction() as session:
        view = _find(session, actor, sub_id, lock=True)
        account = view.account
        if changes.name is not None:
            account.name = changes.name
        if changes.tier is not None and changes.tier.value != account.tier:
            account.tier = changes.tier.value
            session.add(SubUserTier(account_id=account.id, tier=account.tier, effective_at=now))
        if changes.suspended is not None:
            account.suspended_at = (account.suspended_at or now) if changes.suspended else None
        fields = sorted(name for name, value in vars(changes).items() if value is not None)
        _audit(session, actor, AuditEvent.SUB_USER_UPDATED, view.sub, fields=fields, tier=account.tier)
        return SubUserView(view.sub, account)


def delete(actor: Actor, sub_id: str) -> None:
    """Delete a sub-user: its keys stop at once; its records stay for the commission report."""
    ensure_acting_reseller(actor)
    now = clock.now()
    with transaction() as session:
        view = _find(session, actor, sub_id, lock=True)
        view.sub.deleted_at = now
        view.account.suspended_at = view.account.suspended_at or now
        usable = select(ApiKey).where(
            ApiKey.account_id == view.account.id, ApiKey.status != KeyStatus.INACTIVE.value
        )
        for key in session.scalars(usable.with_for_update()):
            lifecycle.deactivate(session, key, "account-deleted", audit.RESELLER)
        _audit(session, actor, AuditEvent.SUB_USER_DELETED, view.sub, email=view.sub.email)


def usage(actor: Actor, sub_id: str) -> UsageReport:
    """The sub-user's ``GET /api/usage`` report, read by its reseller."""
    return usage_report(get(actor, sub_id).account)


def _views(reseller_id: int) -> Select[SubUser, Account]:
    return (
        select(SubUser, Account)
        .join(Account, Account.id == SubUser.account_id)
        .where(SubUser.reseller_id == reseller_id, SubUser.deleted_at.is_(None))
    )


def _live(reseller_id: int) -> Select[SubUser]:
    return select(SubUser).where(SubUser.reseller_id == reseller_id, SubUser.deleted_at.is_(None))


def _find(session: Session, actor: Actor, sub_id: str, *, lock: bool = False) -> SubUserView:
    stmt = _views(actor.account.id).where(SubUser.public_id == sub_id)
    row = session.execute(stmt.with_for_update() if lock else stmt).one_or_none()
    if row is None:
        raise NotFound(f"No sub-user with id {sub_id}.")
    return SubUserView(*row)


def _audit(session: Session, actor: Actor, event: AuditEvent, sub: SubUser, **details: object) -> None:
    audit.record(
        event,
        account_id=actor.account.id,
        key_id=actor.key_id,
        origin=actor.origin,
        details={"subUserId": sub.public_id, **details},
        session=session,
    )
