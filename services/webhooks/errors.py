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


class SendsLimited(ServiceError):
    """Too many test sends or redeliveries this minute (the flat 429 of spec 7.2, with ``Retry-After``)."""

    def __init__(self, limit: int, *, retry_after: int, reset: int) -> None:
        super().__init__(
            f"At most {limit} test sends and redeliveries a minute; retry in {retry_after} seconds.",
            retryAfter=retry_after,
            limit=limit,
            remaining=0,
            reset=reset,
        )


class NoTestTarget(ServiceError):
    """The account has no endpoint, or several, and the test send named none: a conflict with its state."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="endpointId")


class ListenerLimitReached(CodedError):
    code = "LISTENER_LIMIT_REACHED"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"At most {limit} event listeners of an account and mode are open at once; stop one (Ctrl-C in "
            "its terminal) or wait until an abandoned one expires.",
            limit=limit,
        )
