"""Errors of key management (``web/errors.py`` shapes them)."""

from __future__ import annotations

from services.errors import CodedError


class KeyLimitReached(CodedError):
    code = "KEY_LIMIT_REACHED"

    def __init__(self, message: str, *, limit: int, tier: str) -> None:
        super().__init__(message, limit=limit, tier=tier)


class KeyInactive(CodedError):
    """A deactivated key cannot be brought back (spec 3.1: previous keys cannot be recovered)."""

    code = "KEY_INACTIVE"
