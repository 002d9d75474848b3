"""Working through due rows of an outbox (webhook deliveries, owner emails): one row per transaction.

Each round locks the next due row with ``FOR UPDATE SKIP LOCKED``, acts on it and commits, so any number
of sweepers (two beat hosts, a worker woken after commit) share the work without ever taking the same row,
and a slow send holds one row lock, never the whole queue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.orm import Session

from models.session import transaction

Row = TypeVar("Row")


def work_through_due(
    lock_next: Callable[[Session], Row | None], act: Callable[[Session, Row], object], *, limit: int
) -> int:
    """Act on due rows one by one until none is due or ``limit`` were done; returns how many were done."""
    done = 0
    while done < limit:
        with transaction() as session:
            row = lock_next(session)
            if row is None:
                break
            act(session, row)
        done += 1
    return done
