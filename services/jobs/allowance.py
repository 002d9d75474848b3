"""How many addresses an upload may hold, known before a byte of it is stored.

The quota is charged once the list is in (the count is only known then), so without this an account with
nothing left could still make us store millions of rows only to delete them. The room left under the hard
limit is read first: none at all is refused before the upload is read, and a list that grows past it is
refused at the chunk that crosses it, rolling back what was copied. The charge itself stays the authority
(a concurrent charge may still take the room meanwhile; ``admit`` then refuses and deletes the job).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from core import clock
from core.times import iso
from models.accounts import Account
from services.jobs.errors import BadUpload
from services.usage import charging
from services.usage.errors import QuotaExhausted
from services.usage.quota import QuotaStatus


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
    addresses: int  # BULK_MAX_ADDRESSES
    status: QuotaStatus

    @property
    def affordable(self) -> int:
        return max(self.status.hard_limit - self.status.used, 0)

    @property
    def maximum(self) -> int:
        return min(self.addresses, self.affordable)

    def refuse(self, count: int) -> NoReturn:
        """Raise the error for a list found to hold ``count`` (> ``maximum``) addresses so far."""
        if count > self.affordable:
            raise ListUnaffordable(self.status, count)
        raise BadUpload("body", f"A list holds at most {self.addresses} addresses; split it into several.")


def upload_limit(account: Account, max_addresses: int) -> UploadLimit:
    """The limit of one upload; ``ListUnaffordable`` at once when the account has no room at all."""
    limit = UploadLimit(max_addresses, charging.current_status(account))
    if limit.affordable == 0:
        limit.refuse(1)
    return limit
