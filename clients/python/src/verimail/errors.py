"""Errors typed by the API's error codes: one class per family, each with ``code``, ``status``,
``message`` and ``details`` (the body's other fields).

The API answers in two shapes: coded ``{"error": {"code", "message", ...}}`` for authentication,
permission, plan and token errors, and flat ``{"error", "message", ...}`` for protocol errors (400 with
``field``, 404, 413, 500 with ``requestId``, the per-minute 429). A coded error is classed by its code,
a flat one by its status; an unknown code falls back on its status, so a new code is never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class VerimailError(Exception):
    """Base of every error this client raises."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        prefix = " ".join(str(part) for part in (status, code) if part)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.message = message
        self.status = status
        self.code = code
        self.details: dict[str, Any] = dict(details or {})
        self.headers: dict[str, str] = dict(headers or {})

    @property
    def request_id(self) -> str | None:
        """What to quote to support: the body's ``requestId`` (500s) or the ``X-Request-Id`` header."""
        found = self.details.get("requestId") or self.headers.get("x-request-id")
        return str(found) if found else None


class APIConnectionError(VerimailError):
    """No answer: the service could not be reached, or the connection broke."""


class AuthenticationError(VerimailError):
    """401: the key is missing, wrong, revoked or expired."""


class PermissionDeniedError(VerimailError):
    """403: the key may not do this (scope, IP allowlist, test mode, plan, origin)."""


class LimitReachedError(PermissionDeniedError):
    """403: the account already has as many keys, webhook endpoints or sub-users as its plan allows."""


class RateLimitError(VerimailError):
    """429: a rate limit, the monthly hard limit or a publishable key's budget; ``retry_after`` seconds."""

    @property
    def retry_after(self) -> float | None:
        value = self.details.get("retryAfter") or self.headers.get("retry-after")
        return float(value) if value is not None else None


class InvalidRequestError(VerimailError):
    """400, 413, 414, 415: the request itself is wrong; ``field`` names the offending field if one does."""

    @property
    def field(self) -> str | None:
        value = self.details.get("field")
        return str(value) if value else None


class NotFoundError(VerimailError):
    """404: no such thing for this key (another account's ids look exactly like missing ones)."""


class ConflictError(VerimailError):
    """409 or 422: understood but refused in the current state (an idempotency key reused with another
    body, a list not finished yet, a name taken, an inactive key, a domain not verified)."""


class TokenError(VerimailError):
    """A verdict token that confirms nothing (forged, expired, of another account or address) or was
    confirmed before (``TOKEN_ALREADY_CONFIRMED``): the page's verdict is not to be trusted."""


class ServerError(VerimailError):
    """500: a bug on the service's side; quote ``request_id``."""


class ServiceUnavailableError(ServerError):
    """503: the service's database or Redis is unreachable for a moment; retried automatically."""


# Every code the service sends, with its family; tests/clients/test_drift.py keeps it complete.
CODES: dict[str, type[VerimailError]] = {
    "MISSING_API_KEY": AuthenticationError,
    "INVALID_API_KEY": AuthenticationError,
    "QUERY_API_KEY_NOT_ALLOWED": AuthenticationError,
    "INBOUND_REQUEST_REFUSED": AuthenticationError,
    "INSUFFICIENT_PERMISSIONS": PermissionDeniedError,
    "IP_NOT_ALLOWED": PermissionDeniedError,
    "LIVE_MODE_REQUIRED": PermissionDeniedError,
    "ORIGIN_NOT_ALLOWED": PermissionDeniedError,
    "PLAN_UPGRADE_REQUIRED": PermissionDeniedError,
    "KEY_LIMIT_REACHED": LimitReachedError,
    "WEBHOOK_ENDPOINT_LIMIT_REACHED": LimitReachedError,
    "INBOUND_SOURCE_LIMIT_REACHED": LimitReachedError,
    "LISTENER_LIMIT_REACHED": LimitReachedError,
    "SUB_USER_LIMIT_REACHED": LimitReachedError,
    "RATE_LIMIT_EXCEEDED": RateLimitError,
    "PUBLISHABLE_KEY_BUDGET_EXCEEDED": RateLimitError,
    "BATCH_EMPTY": InvalidRequestError,
    "INBOUND_PAYLOAD_INVALID": InvalidRequestError,
    "BATCH_TOO_LARGE": InvalidRequestError,
    "KEY_INACTIVE": ConflictError,
    "EMAIL_TAKEN": ConflictError,
    "DOMAIN_TAKEN": ConflictError,
    "DOMAIN_NOT_VERIFIED": ConflictError,
    "TOKEN_INVALID": TokenError,
    "TOKEN_EXPIRED": TokenError,
    "TOKEN_KEY_RETIRED": TokenError,
    "TOKEN_OF_ANOTHER_ACCOUNT": TokenError,
    "TOKEN_EMAIL_MISMATCH": TokenError,
    "TOKEN_ALREADY_CONFIRMED": TokenError,
}
STATUSES: dict[int, type[VerimailError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: InvalidRequestError,
    414: InvalidRequestError,
    415: InvalidRequestError,
    422: ConflictError,
    429: RateLimitError,
    500: ServerError,
    503: ServiceUnavailableError,
}


def error_from(status: int, body: object, headers: Mapping[str, str]) -> VerimailError:
    """The typed error for an answer of ``status`` with ``body`` (parsed JSON, or text if it was not)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):  # the coded shape
        fields = dict(error)
        code, message = str(fields.pop("code", "")) or None, str(fields.pop("message", ""))
        nested = fields.pop("details", None)  # BATCH_TOO_LARGE nests its numbers one level down
        fields.update(nested if isinstance(nested, dict) else {})
        family = CODES.get(code or "") or _by_status(status)
        return family(message, status=status, code=code, details=fields, headers=lowered)
    if isinstance(body, dict):  # the flat shape
        fields = {name: value for name, value in body.items() if name not in ("error", "message")}
        message = str(body.get("message") or body.get("error") or "")
        return _by_status(status)(message, status=status, details=fields, headers=lowered)
    return _by_status(status)(str(body)[:500], status=status, headers=lowered)


def _by_status(status: int) -> type[VerimailError]:
    return STATUSES.get(status) or (ServerError if status >= 500 else VerimailError)
