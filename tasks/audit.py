"""Audit task: write the counts of folded failures into their entries (``services.audit_folding``)."""

from __future__ import annotations

from celery import shared_task

from services import audit_folding
from tasks.beat import Every


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def fold_audit_counts() -> int:
    return audit_folding.fold_counts()


BEAT = [Every(fold_audit_counts, audit_folding.FOLD_SECONDS)]
