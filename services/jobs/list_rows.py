"""The rows of a batch or a list: which are the same address, and what each row is answered.

Rows are the same address when their ``verifier.dedupe.address_key`` is equal. The first such row is
validated and charged; every later one keeps its own row, is settled with the same verdict (the workers
settle by normalised address) and names the first in ``duplicateOf``. Each answer then echoes its own
row: ``index`` (its 0-based position in the submitted list), ``input`` exactly as submitted and ``email``
trimmed and lowercased (``verifier.syntax.result_email``), so a client can join answers to its rows on
``index`` or ``input`` even when two rows share one verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from models.jobs import JobKind
from verifier.dedupe import address_key
from verifier.syntax import result_email

_MARK_DUPLICATES = text("""
UPDATE job_items i SET duplicate_of = d.first
FROM (SELECT position, min(position) OVER (PARTITION BY key) AS first
      FROM job_items WHERE job_id = :job AND key IS NOT NULL) d
WHERE i.job_id = :job AND i.position = d.position AND d.first <> d.position
""")
_DISTINCT = text("SELECT count(DISTINCT key) FROM job_items WHERE job_id = :job")


def first_rows(inputs: Sequence[str]) -> tuple[list[str], list[int | None]]:
    """The keys of ``inputs`` and, for each, the position of the first row with its key (None for that
    first row itself): for a batch, whose hundred rows are judged in the web process."""
    keys = [address_key(raw) for raw in inputs]
    first: dict[str, int] = {}
    return keys, [None if (at := first.setdefault(key, i)) == i else at for i, key in enumerate(keys)]


def mark_duplicates(session: Session, job_id: int) -> int:
    """Set ``duplicate_of`` on every stored row of the job whose key an earlier row has; the number of
    distinct addresses (what the list is charged). One set-based statement, whatever the list's size."""
    session.execute(_MARK_DUPLICATES, {"job": job_id})
    return distinct_addresses(session, job_id)


def distinct_addresses(session: Session, job_id: int) -> int:
    return int(session.scalar(_DISTINCT, {"job": job_id}) or 0)


def answer(
    kind: str, position: int, raw: str, duplicate_of: int | None, result: dict[str, Any]
) -> dict[str, Any]:
    """The stored ``result`` as row ``position`` is answered (see the module docstring); a single
    validation has no list, so no ``index`` or ``duplicateOf``."""
    own = {**result, "input": raw, "email": result_email(raw)}
    if kind == JobKind.SINGLE.value:
        return own
    return {"index": position, **own, "duplicateOf": duplicate_of}
