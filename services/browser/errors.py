"""Errors of browser validation and token confirmation (``web/errors.py`` shapes them; docs/decisions.md
lists their statuses)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from core.times import iso
from services.errors import CodedError
from services.usage.periods import seconds_until

if TYPE_CHECKING:
    from services.usage.rate_limits import Window


class OriginNotAllowed(CodedError):
    """The page calling is not on one of the key's allowed origins (or no page is: no Origin header)."""

    code = "ORIGIN_NOT_ALLOWED"


class BudgetExhausted(CodedError):
    """The publishable key has answered its owner's daily or monthly budget (``services.browser.budget``);
    429, nothing validated or charged."""

    code = "PUBLISHABLE_KEY_BUDGET_EXCEEDED"

    def __init__(self, span: str, window: Window, now: datetime) -> None:
        field = f"publishable{span.capitalize()}Budget"
        super().__init__(
            f"This publishable key's {span} budget of {window.limit} validations is used up; it renews at "
            f"{iso(window.resets_at)}. The key's owner sets the budget ({field} on the key).",
            retryAfter=seconds_until(window.resets_at, now),
            budget=span,
            limit=window.limit,
            used=window.used,
            resetsAt=iso(window.resets_at),
        )
        self.span = span
        self.window = window


class TokenRefused(CodedError):
    """A verdict token that does not confirm anything; each subclass names why."""


class TokenInvalid(TokenRefused):
    """Not a token this service issued, or one altered since: forged, truncated, tampered with."""

    code = "TOKEN_INVALID"


class TokenKeyRetired(TokenRefused):
    """Sealed with a token key the service no longer holds (rotated out of ``VERDICT_TOKEN_KEYS``)."""

    code = "TOKEN_KEY_RETIRED"


class TokenExpired(TokenRefused):
    code = "TOKEN_EXPIRED"


class TokenAlreadyConfirmed(TokenRefused):
    """A token confirms one form submission: a second confirmation is a replay."""

    code = "TOKEN_ALREADY_CONFIRMED"


class TokenOfAnotherAccount(TokenRefused):
    code = "TOKEN_OF_ANOTHER_ACCOUNT"


class TokenEmailMismatch(TokenRefused):
    """The token is genuine but about another address than the one the form submitted."""

    code = "TOKEN_EMAIL_MISMATCH"
