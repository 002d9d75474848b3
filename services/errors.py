"""Typed exceptions raised by services; ``web/errors.py`` is the one place that turns them into bodies.

Each exception carries what a client needs to act (a message that says what to do next, plus the extra
fields of spec 7.1), never an HTTP status: statuses and body shapes are the web tier's business, so a
Celery task or the CLI can raise and catch the same errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar


class ServiceError(Exception):
    """Base of every error a caller may show to a user; ``extra`` becomes extra body fields."""

    def __init__(self, message: str, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class CodedError(ServiceError):
    """An error with a stable machine-readable code (spec 7.1 coded shape)."""

    code: ClassVar[str]


class MissingApiKey(CodedError):
    code = "MISSING_API_KEY"


class InvalidApiKey(CodedError):
    code = "INVALID_API_KEY"


class QueryApiKeyRefused(CodedError):
    """The ``api_key`` query parameter was used outside development (URLs end up in logs)."""

    code = "QUERY_API_KEY_NOT_ALLOWED"


class InsufficientPermissions(CodedError):
    code = "INSUFFICIENT_PERMISSIONS"

    def __init__(self, message: str, *, required: str, granted: Sequence[str]) -> None:
        super().__init__(message, requiredScope=required, grantedScopes=list(granted))


class IpNotAllowed(CodedError):
    code = "IP_NOT_ALLOWED"

    def __init__(self, message: str, *, client_ip: str | None, allowed: Sequence[str]) -> None:
        super().__init__(message, clientIp=client_ip, allowedIps=list(allowed))


class NotFound(ServiceError):
    """The thing does not exist *for this caller*: another account's ids look exactly like missing ones."""


class InvalidField(ServiceError):
    """A value that passed the schema but breaks a rule; ``field`` names it like the 400 flat shape."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)
