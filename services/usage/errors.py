"""Errors of usage: the quota and the rate limits refusing a request (``web/errors.py`` shapes them)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from core.times import iso
from services.errors import CodedError, ServiceError
from services.usage.periods import seconds_until

if TYPE_CHECKING:
    from services.usage.quota import QuotaStatus
    from services.usage.rate_limits import RateStatus


class QuotaExhausted(CodedError):
    """The charge would take usage past the hard limit; nothing was charged (spec 7.1, 429)."""

    code = "RATE_LIMIT_EXCEEDED"

    def __init__(self, status: QuotaStatus, requested: int, now: datetime) -> None:
        room = max(status.hard_limit - status.used, 0)
        super().__init__(
            f"Monthly quota exhausted: {status.used} of {status.hard_limit} validations used (120% of "
            f"{status.limit}); this request needs {requested}, {room} remain. The quota resets at "
            f"{iso(status.period.end)}.",
            retryAfter=seconds_until(status.period.end, now),
            limit=status.limit,
            used=status.used,
            hardLimit=status.hard_limit,
            requested=requested,
            resetsAt=iso(status.period.end),
        )
        self.status = status


class PublishableQuotaExhausted(QuotaExhausted):
    """A publishable key's answer would take usage past the quota itself: web pages never run the account
    into billed overage (the account's servers still may, up to the hard limit)."""

    def __init__(self, status: QuotaStatus, requested: int, now: datetime) -> None:
        super().__init__(status, requested, now)
        self.message = (
            f"The account's monthly quota is used up ({status.used} of {status.limit} validations): a "
            "publishable key is never answered into the billed overage buffer. Its answers resume when the "
            f"quota resets at {iso(status.period.end)}."
        )
        self.args = (self.message,)


class RateLimited(ServiceError):
    """Too many requests in a window; the web tier answers 429 in the flat shape of spec 7.2."""

    def __init__(self, status: RateStatus, now: datetime) -> None:
        window = status.binding
        self.span = "minute" if window is status.minute else "day"
        retry_after = seconds_until(window.resets_at, now)
        super().__init__(
            f"Rate limit of {window.limit} requests per {self.span} reached; retry in {retry_after} seconds.",
            retryAfter=retry_after,
            limit=window.limit,
            remaining=window.remaining,
            reset=int(window.resets_at.timestamp()),
        )
        self.status = status
