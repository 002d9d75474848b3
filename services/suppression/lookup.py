"""Which of some addresses an account's list (of one mode) holds, with their evidence: one indexed query.

Validation asks before it probes: quickMode per address, a job's planning per chunk of rows (the job's
own account and mode are read in the same statement).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from models.jobs import ValidationJob
from models.suppression import SuppressedAddress
from services.suppression.answers import Evidence
from services.suppression.normalise import suppression_key


def evidence_of(row: SuppressedAddress) -> Evidence:
    return Evidence(row.email, row.kind, row.source, row.diagnostic_code, row.bounced_at, row.created_at)


def suppressed(
    session: Session, account_id: int, livemode: bool, emails: Iterable[str]
) -> dict[str, Evidence]:
    """The evidence of each of ``emails`` the list holds, by the email as given."""
    return _found(session, account_id, livemode, emails)


def suppressed_in_job(session: Session, job_id: int, emails: Iterable[str]) -> dict[str, Evidence]:
    """``suppressed`` for the account and mode of job ``job_id``."""
    job = ValidationJob.id == job_id
    account = select(ValidationJob.account_id).where(job).scalar_subquery()
    livemode = select(ValidationJob.livemode).where(job).scalar_subquery()
    return _found(session, account, livemode, emails)


def _found(
    session: Session,
    account: int | ColumnElement[int],
    livemode: bool | ColumnElement[bool],
    emails: Iterable[str],
) -> dict[str, Evidence]:
    keys = {email: suppression_key(email) for email in emails}
    if not keys:
        return {}
    rows = session.scalars(
        select(SuppressedAddress).where(
            SuppressedAddress.account_id == account,
            SuppressedAddress.livemode == livemode,
            SuppressedAddress.address.in_(set(keys.values())),
        )
    ).all()
    found = {row.address: evidence_of(row) for row in rows}
    return {email: found[key] for email, key in keys.items() if key in found}
