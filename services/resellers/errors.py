"""The reseller capability's errors (statuses are mapped in ``web/errors.py``)."""

from __future__ import annotations

from services.errors import CodedError


class PlanUpgradeRequired(CodedError):
    """The caller's plan is not Enterprise Plus: no scope would help, only an upgrade."""

    code = "PLAN_UPGRADE_REQUIRED"

    def __init__(self, message: str, *, tier: str, required_tier: str) -> None:
        super().__init__(message, tier=tier, requiredTier=required_tier)


class SubUserLimitReached(CodedError):
    code = "SUB_USER_LIMIT_REACHED"

    def __init__(self, message: str, *, limit: int) -> None:
        super().__init__(message, limit=limit)


class EmailTaken(CodedError):
    """The reseller already has a (live) sub-user with this email."""

    code = "EMAIL_TAKEN"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="email")


class DomainTaken(CodedError):
    """The hostname is registered by this reseller already, or verified by another one."""

    code = "DOMAIN_TAKEN"

    def __init__(self, message: str) -> None:
        super().__init__(message, field="hostname")


class DomainNotVerified(CodedError):
    """The TXT challenge was not found (yet): what we looked for and what DNS answered."""

    code = "DOMAIN_NOT_VERIFIED"

    def __init__(self, message: str, *, record: dict[str, str], found: list[str]) -> None:
        super().__init__(message, record=record, found=found)
