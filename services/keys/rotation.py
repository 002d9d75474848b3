"""The 90-day rotation policy (spec 3.1), applied by the beat sweeper: warnings, rotation, grace, the end.

``run`` is what the task calls. It walks usable keys at least 83 days into their secret's life, each in its
own transaction, then sends the emails those transactions queued (after they committed, so nobody hears
about a change that rolled back).

Exactly once, with any number of sweepers (several beat hosts, a task run many times a day):

- each key is taken with ``SELECT ... FOR UPDATE SKIP LOCKED``: two sweepers never work on one key at the
  same moment, and a key held by a manual refresh is left for the next sweep, which sees its new clock;
- each milestone is claimed by inserting (key, milestone, secret generation) into
  ``key_rotation_notices`` under a unique constraint (``ON CONFLICT DO NOTHING``): even without the lock, a
  second claim of the same milestone inserts nothing and does nothing;
- the milestone's effect (new secret, grace, deactivation) and its email are written in the transaction
  of the claim, so they commit together or not at all.

Trade-off accepted: enforcement follows the sweep interval. A key reaches grace or is deactivated at the
first sweep after its day 90/97, not at that exact second (authentication reads the status the sweeper
wrote, not the key's age).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from core import clock
from models.accounts import Account
from models.keys import ApiKey, KeyStatus, Milestone, RotationNotice
from models.session import transaction
from services import audit, branding, links
from services.keys import lifecycle, rotation_mail, rotation_policy, sealed
from services.mail import outbox

log = logging.getLogger(__name__)
USABLE = (KeyStatus.ACTIVE.value, KeyStatus.GRACE.value)
PAGE = 500


@dataclass
class SweepReport:
    """What one run did, for the task's result and the logs."""

    milestones: dict[str, int] = field(default_factory=dict)
    purged_secrets: int = 0
    mail_attempts: int = 0

    def count(self, milestone: Milestone) -> None:
        self.milestones[milestone.value] = self.milestones.get(milestone.value, 0) + 1


def run() -> SweepReport:
    """One sweep: apply every due milestone, forget expired sealed secrets, send the queued emails."""
    report = SweepReport()
    for key_id in _candidate_ids(clock.now()):
        try:
            with transaction() as session:
                for milestone in advance(session, key_id, clock.now()):
                    report.count(milestone)
        except Exception:  # one broken key must not hold back every key after it
            log.exception("rotation sweep failed for key %s; it is retried at the next sweep", key_id)
    report.purged_secrets = sealed.purge_expired()
    report.mail_attempts = outbox.send_due()
    return report


def _candidate_ids(now: datetime) -> Iterator[int]:
    """Usable live keys old enough for a milestone, by id in pages (a key refreshed meanwhile is re-checked).
    Test keys are left out: they reach no live data nor quota, and a CI job's sandbox key must not stop."""
    oldest_issue = now - timedelta(days=rotation_policy.FIRST_ACTION_DAY)
    after = 0
    while True:
        stmt = (
            select(ApiKey.id)
            .where(ApiKey.status.in_(USABLE), ApiKey.secret_issued_at <= oldest_issue, ApiKey.id > after)
            .where(ApiKey.livemode.is_(True))
            .order_by(ApiKey.id)
            .limit(PAGE)
        )
        with transaction() as session:
            ids = list(session.scalars(stmt))
        yield from ids
        if len(ids) < PAGE:
            return
        after = ids[-1]


def advance(session: Session, key_id: int, now: datetime) -> list[Milestone]:
    """Apply the milestones ``key_id`` has reached, in order; the owner is emailed about the last one only.

    Usually one applies. After an outage a key may reach several in one sweep (grace then deactivation);
    an email about a grace period that already ended would mislead, so only the latest is sent.
    """
    key = _lock_usable(session, key_id)
    if key is None:  # another sweeper or a refresh holds it, or it was deactivated meanwhile
        return []
    applied: list[tuple[Milestone, RotationNotice]] = []
    while (milestone := rotation_policy.next_milestone(key, now)) is not None:
        notice = _claim(session, key, milestone, now)
        if notice is None:  # reached and handled before, for this secret
            break
        _apply(session, key, milestone)
        applied.append((milestone, notice))
    if applied:
        last, notice = applied[-1]
        _email_owner(session, key, last, notice, now)
    return [milestone for milestone, _ in applied]


def _lock_usable(session: Session, key_id: int) -> ApiKey | None:
    stmt = select(ApiKey).where(ApiKey.id == key_id, ApiKey.status.in_(USABLE))
    return session.scalars(stmt.with_for_update(skip_locked=True)).one_or_none()


def _claim(session: Session, key: ApiKey, milestone: Milestone, now: datetime) -> RotationNotice | None:
    """Insert the notice of ``milestone`` for the key's current secret; None if it already exists."""
    stmt = (
        insert(RotationNotice)
        .values(
            key_id=key.id, milestone=milestone.value, secret_issued_at=key.secret_issued_at, reached_at=now
        )
        .on_conflict_do_nothing(index_elements=["key_id", "milestone", "secret_issued_at"])
        .returning(RotationNotice.id)
    )
    notice_id = session.scalar(stmt)
    return None if notice_id is None else session.get_one(RotationNotice, notice_id)


def _apply(session: Session, key: ApiKey, milestone: Milestone) -> None:
    """The state change of ``milestone`` (warnings change nothing but the notice and the email)."""
    if milestone is Milestone.ROTATED:
        secret = lifecycle.rotate_secret(session, key, audit.SYSTEM, trigger="auto-rotation")
        sealed.seal(session, key, secret)
    elif milestone is Milestone.GRACE:
        key.status = KeyStatus.GRACE.value
    elif milestone is Milestone.DEACTIVATED:
        lifecycle.deactivate(session, key, "rotation-overdue")


def _email_owner(
    session: Session, key: ApiKey, milestone: Milestone, notice: RotationNotice, now: datetime
) -> None:
    account = session.get_one(Account, key.account_id)
    sender = rotation_mail.Sender(
        branding.brand_in(session, account), links.base_url(links.account_host(session, account.id))
    )
    draft = rotation_mail.draft(milestone, key, account.owner_email, now, sender)
    notice.mail_id = outbox.queue(session, account.id, draft).id
