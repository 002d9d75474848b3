"""What can go wrong signing up, signing in and resetting a password; the dashboard shows ``message``."""

from __future__ import annotations

from services.errors import ServiceError


class UserError(ServiceError):
    """A refusal the person can act on; the message says what to do."""


class EmailTaken(UserError):
    pass


class WeakPassword(UserError):
    pass


class SignInRefused(UserError):
    """Wrong email or password: one message for both, so the form does not reveal who has an account."""


class Throttled(UserError):
    """Too many tries from one place; ``retry_after`` seconds until the next one counts."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, retryAfter=retry_after)
        self.retry_after = retry_after


class SignInThrottled(Throttled):
    pass


class ResetLinkInvalid(UserError):
    pass
