"""Time helpers shared by every layer: the epoch and the one wire format of instants."""

from __future__ import annotations

import functools
from datetime import UTC, datetime

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=256)  # a save stamps thousands of results with the one instant it ran at
def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z`` and millisecond precision: the one time format of payloads and headers."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
