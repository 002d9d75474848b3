"""Errors of monitored lists (``web/errors.py`` shapes them)."""

from __future__ import annotations

from services.errors import ServiceError


class AlreadyMonitored(ServiceError):
    """The finished list is kept as a monitored list already (one per list)."""

    def __init__(self, job_id: str, list_id: str) -> None:
        super().__init__(f"The list {job_id} is monitored already as {list_id}.", listId=list_id)


class NotMonitorable(ServiceError):
    """Only a completed bulk list can be kept: a cancelled or failed one has no verdicts to compare."""


class RunNotCompared(ServiceError):
    """The run has not finished: its changes are not known yet."""
