"""Errors of outbound mail: how the relay refused a message (kept, retried or given up by the outbox)."""

from __future__ import annotations


class TemporaryFailure(Exception):
    """The message may go through later: keep it queued."""


class PermanentFailure(Exception):
    """The relay refused this message for good (5xx): mark it failed."""
