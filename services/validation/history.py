"""An account's recent jobs, newest first: the dashboard's history of batches and lists."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from models.jobs import JobKind, JobStatus, ValidationJob
from models.session import transaction
from services.auth import Actor

HISTORY_MAX = 100


def recent_jobs(auth: Actor, kinds: Sequence[JobKind], limit: int = 50) -> list[ValidationJob]:
    """The caller's jobs of ``kinds`` in its mode (never another account's or mode's, never half-uploaded)."""
    stmt = (
        select(ValidationJob)
        .where(
            ValidationJob.account_id == auth.account.id,
            ValidationJob.livemode == auth.livemode,
            ValidationJob.kind.in_([kind.value for kind in kinds]),
            ValidationJob.status != JobStatus.UPLOADING.value,
        )
        .order_by(ValidationJob.created_at.desc(), ValidationJob.id.desc())
        .limit(min(limit, HISTORY_MAX))
    )
    with transaction() as session:
        return list(session.scalars(stmt))
