"""What the suppression capability refuses."""

from __future__ import annotations

from services.errors import CodedError


class InboundRefused(CodedError):
    """An inbound notification that is unsigned, badly signed, for a revoked or unknown source, or from a
    topic the source does not accept: never trusted, always audited. One code for every reason, so a
    prober learns nothing about which sources exist."""

    code = "INBOUND_REQUEST_REFUSED"

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason  # for the audit log only, never in the answer


class BadNotification(CodedError):
    """A genuine (authenticated) request whose body is not the provider's format."""

    code = "INBOUND_PAYLOAD_INVALID"


class SourceLimitReached(CodedError):
    code = "INBOUND_SOURCE_LIMIT_REACHED"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"An account has at most {limit} active inbound sources; revoke one first.", limit=limit
        )
