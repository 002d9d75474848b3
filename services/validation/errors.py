"""Errors of validation jobs; ``web/errors.py`` maps them to statuses (docs/decisions.md lists them)."""

from __future__ import annotations

from services.errors import CodedError, ServiceError

BATCH_MAXIMUM = 100


class BatchEmpty(CodedError):
    code = "BATCH_EMPTY"

    def __init__(self) -> None:
        super().__init__("The emails array is empty; send between 1 and 100 addresses.")


class BatchTooLarge(CodedError):
    code = "BATCH_TOO_LARGE"

    def __init__(self, submitted: int) -> None:
        super().__init__(
            f"A batch holds at most {BATCH_MAXIMUM} addresses; {submitted} were sent. Split the list, or use "
            "the bulk API for large lists.",
            details={"submitted": submitted, "maximum": BATCH_MAXIMUM},
        )


class JobNotFinished(ServiceError):
    """Results are downloaded once the job has finished (completed or cancelled)."""


class BadUpload(ServiceError):
    """A bulk list that cannot be read; ``field`` says which part (``body``, a line, an item)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


class IdempotencyKeyReused(ServiceError):
    """The key was used, within 24 h, for a different request."""


class IdempotentRequestInProgress(ServiceError):
    """The first request with this key has not finished being received yet."""
