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
    """``granted`` is None for a publishable key: whoever holds one (anyone reading a web page) must not learn
    what its secret twin may do."""

    code = "INSUFFICIENT_PERMISSIONS"

    def __init__(self, message: str, *, required: str, granted: Sequence[str] | None) -> None:
        shown = {} if granted is None else {"grantedScopes": list(granted)}
        super().__init__(message, requiredScope=required, **shown)


class LiveModeRequired(CodedError):
    """A test-mode caller (a test key, the dashboard's test switch) asked for something that exists only
    live: money, real accounts, real DNS. No scope would help, only a live key or the live dashboard."""

    code = "LIVE_MODE_REQUIRED"

    def __init__(self, message: str) -> None:
        super().__init__(message, mode="test", requiredMode="live")


class IpNotAllowed(CodedError):
    """``allowed`` is None for a publishable key: the allowlist maps the owner's network, not the public's."""

    code = "IP_NOT_ALLOWED"

    def __init__(self, message: str, *, client_ip: str | None, allowed: Sequence[str] | None) -> None:
        shown = {} if allowed is None else {"allowedIps": list(allowed)}
        super().__init__(message, clientIp=client_ip, **shown)


class NotFound(ServiceError):
    """The thing does not exist *for this caller*: another account's ids look exactly like missing ones."""


class InvalidField(ServiceError):
    """A value that passed the schema but breaks a rule; ``field`` names it like the 400 flat shape."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)
