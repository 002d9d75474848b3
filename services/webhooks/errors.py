"""Errors of webhooks: endpoints and targets refused, deliveries failed (``web/errors.py`` shapes them)."""

from __future__ import annotations

from services.errors import CodedError, ServiceError


class UnsafeTarget(ServiceError):
    """The target host resolves to an address deliveries must not reach, or does not resolve at all."""


class EndpointLimitReached(CodedError):
    code = "WEBHOOK_ENDPOINT_LIMIT_REACHED"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"An account can have {limit} webhook endpoints; delete one first. One endpoint can "
            "subscribe to every event type.",
            limit=limit,
        )


class UnknownEventType(ValueError):
    """A programming error: the caller named a type that spec 6.1 does not list."""


class DeliveryError(Exception):
    """No HTTP answer (refused target, DNS, TLS, connection, timeout); the message says which."""
