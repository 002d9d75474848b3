"""How many addresses an upload may hold, known before a byte of it is stored.

The quota is charged once the list is in (the count is only known then), so without this an account with
nothing left could still make us store millions of rows only to delete them. The room left under the hard
limit is read first: none at all is refused before the upload is read, and a list whose distinct
addresses (what it is charged, ``services.jobs.list_rows``) grow past it is refused while it streams in,
rolling back what was copied. The charge itself stays the authority
(a concurrent charge may still take the room meanwhile; ``admit`` then refuses and deletes the job).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from core import clock
from core.times import iso
from models.accounts import Account
from services.usage import charging
from services.usage.errors import QuotaExhausted
from services.usage.quota import QuotaStatus
from services.validation.errors import BadUpload


class ListUnaffordable(QuotaExhausted):
    """The list holds more addresses than the quota has room for (the same 429 as a refused charge)."""

    def __init__(self, status: QuotaStatus, at_least: int) -> None:
        super().__init__(status, at_least, clock.now())
        room = max(status.hard_limit - status.used, 0)
        self.message = (
            f"Monthly quota exhausted: the list holds at least {at_least} addresses and {room} of "
            f"{status.hard_limit} validations (120% of {status.limit}) remain. Nothing was stored or "
            f"charged; the quota resets at {iso(status.period.end)}."
        )
        self.args = (self.message,)


@dataclass(frozen=True)
class UploadLimit:
    addresses: int  # BULK_MAX_ADDRESSES: rows of one list, blank ones included
    status: QuotaStatus
    room_checked: bool = True  # False for a dry run, which reports the cost instead of refusing it

    @property
    def affordable(self) -> int:
        return max(self.status.hard_limit - self.status.used, 0)

    @property
    def refused_past(self) -> int | None:
        """The number of distinct addresses past which the list is refused (None: never)."""
        return self.affordable if self.room_checked else None

    def refuse(self, distinct: int) -> NoReturn:
        """Raise the error for a list found to hold ``distinct`` (> ``affordable``) addresses so far."""
        raise ListUnaffordable(self.status, distinct)

    def refuse_rows(self, rows: int) -> NoReturn:
        """Raise the error for a list found to hold ``rows`` (> ``addresses``) rows so far."""
        raise BadUpload(
            "body", f"A list holds at most {self.addresses} rows ({rows} so far); split it into several."
        )


def upload_limit(account: Account, max_addresses: int, *, charged: bool = True) -> UploadLimit:
    """The limit of one upload; ``ListUnaffordable`` at once when the account has no room at all. A list
    that is not ``charged`` (test mode) is held to the row limit only."""
    limit = UploadLimit(max_addresses, charging.current_status(account), room_checked=charged)
    if charged and limit.affordable == 0:
        limit.refuse(1)
    return limit
