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

from models.jobs import JobKind
from verifier.dedupe import address_key
from verifier.syntax import result_email


def first_rows(inputs: Sequence[str]) -> tuple[list[str], list[int | None]]:
    """The keys of ``inputs`` and, for each, the position of the first row with its key (None for that
    first row itself): for a batch, whose hundred rows are judged in the web process."""
    keys = [address_key(raw) for raw in inputs]
    first: dict[str, int] = {}
    return keys, [None if (at := first.setdefault(key, i)) == i else at for i, key in enumerate(keys)]


def answer(
    kind: str, position: int, raw: str, duplicate_of: int | None, result: dict[str, Any]
) -> dict[str, Any]:
    """The stored ``result`` as row ``position`` is answered (see the module docstring); a single
    validation has no list, so no ``index`` or ``duplicateOf``."""
    own = {**result, "input": raw, "email": result_email(raw)}
    if kind == JobKind.SINGLE.value:
        return own
    return {"index": position, **own, "duplicateOf": duplicate_of}
